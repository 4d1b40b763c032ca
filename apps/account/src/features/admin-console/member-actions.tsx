import { useId, useState } from 'react';
import type { MemberDetail, Role } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import type { MemberActions } from './decide-member-actions.ts';
import type { MemberChanges } from './use-member-changes.ts';

interface Props {
  member: MemberDetail;
  actions: MemberActions;
  changes: MemberChanges;
}

/** How the last change went, with an undo for a role change. */
export function MemberNoticeLine({ changes }: { changes: MemberChanges }) {
  const { notice, busy, changeRole } = changes;
  if (notice && 'error' in notice) return <p role="alert">{notice.error}</p>;
  if (!notice) return null;
  return (
    <div role="status" className="notice">
      {notice.text}{' '}
      {notice.undo ? (
        <button
          type="button"
          className="button secondary"
          disabled={busy}
          onClick={() => changeRole(notice.undo!, true)}
        >
          {t.member.undo}
        </button>
      ) : null}
    </div>
  );
}

/** The role picker, for the roles this admin may give. */
export function MemberRoleForm({ member, actions, changes }: Props) {
  const [role, setRole] = useState<Role | ''>('');
  const roleId = useId();
  if (!actions.canChangeRole) return null;
  return (
    <form
      className="row"
      onSubmit={(event) => {
        event.preventDefault();
        if (role && role !== member.role) void changeRole(role);
      }}
    >
      <label htmlFor={roleId}>{t.member.roleLabel}</label>
      <select id={roleId} value={role || member.role} onChange={(e) => setRole(e.target.value as Role)}>
        {actions.roleOptions.map((r) => (
          <option key={r} value={r}>
            {t.roles[r]}
          </option>
        ))}
      </select>
      <button type="submit" className="button" disabled={changes.busy}>
        {t.member.changeRole}
      </button>
    </form>
  );

  function changeRole(to: Role) {
    setRole('');
    return changes.changeRole(to, false);
  }
}

/** One button per action this admin may take on the member; deactivation asks first. */
export function MemberButtons({ actions, changes }: Omit<Props, 'member'>) {
  const { busy, confirming, setConfirming, act } = changes;
  const button = (shown: boolean, label: string, onClick: () => void, primary = false) =>
    shown ? (
      <button
        type="button"
        className={primary ? 'button' : 'button secondary'}
        disabled={busy}
        onClick={onClick}
      >
        {label}
      </button>
    ) : null;
  return (
    <div className="row">
      {button(actions.canDeactivate && !confirming, t.member.deactivate, () => setConfirming(true))}
      {button(
        actions.canReactivate,
        t.member.reactivate,
        () => act('reactivate', t.member.reactivated, 'reactivate'),
        true,
      )}
      {button(actions.canEndSessions, t.member.endSessions, () =>
        act('end-sessions', t.member.sessionsEnded),
      )}
      {button(actions.canResetTwoFactor, t.member.resetTwoFactor, () =>
        act('reset-2fa', t.member.twoFactorReset),
      )}
      {button(actions.canUnlock, t.member.unlock, () => act('unlock', t.member.unlocked))}
    </div>
  );
}

/** "Deactivate <name>?": the confirmation, with Cancel focused. */
export function ConfirmDeactivate({ name, changes }: { name: string; changes: MemberChanges }) {
  if (!changes.confirming) return null;
  return (
    <div role="alertdialog" aria-labelledby="confirm-text" className="notice">
      <p id="confirm-text">{t.member.confirmDeactivate(name)}</p>
      <div className="row">
        <button
          type="button"
          className="button"
          disabled={changes.busy}
          onClick={() => changes.act('deactivate', t.member.deactivated)}
        >
          {t.member.confirm}
        </button>
        <button
          type="button"
          className="button secondary"
          autoFocus
          onClick={() => changes.setConfirming(false)}
        >
          {t.member.cancel}
        </button>
      </div>
    </div>
  );
}
