import { useId, useState } from 'react';
import { CONSOLE_PATHS } from '../../shared/config/paths.ts';
import { Link } from '../../shared/ui/link.tsx';
import { consoleApi, type Me, type Role } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideMemberActions } from './decide-member-actions.ts';
import type { MemberChange } from './decide-scim.ts';
import { scimFailureMessage } from './scim-notice.tsx';
import { selectSignInFacts } from './select-sign-in-facts.ts';
import { formatDate, formatNumber, useLoad } from './use-load.ts';

type Notice = { text: string; undo?: Role } | { error: string } | null;

export function MemberSection({ me, userId }: { me: Me; userId: string }) {
  const [detail, reload] = useLoad(userId, () => consoleApi.member(me.organisationId, userId));
  const [notice, setNotice] = useState<Notice>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [role, setRole] = useState<Role | ''>('');
  const roleId = useId();

  if (detail.state === 'loading') return <p role="status">{t.loading}</p>;
  if (detail.state === 'error') return <p role="alert">{t.loadFailed(detail.message)}</p>;
  const member = detail.value;
  const actions = decideMemberActions(me, member);
  const name = `${member.firstName} ${member.lastName}`;
  const signIn = selectSignInFacts(member, { date: formatDate, number: formatNumber });

  async function run(action: () => Promise<unknown>, done: Notice, kind: MemberChange = 'other') {
    setBusy(true);
    try {
      await action();
      setNotice(done);
      setRole('');
      reload();
    } catch (error) {
      // The directory's refusals (a role it took over since the page loaded, a person it removed): in words.
      setNotice({ error: scimFailureMessage(error, kind) });
      reload();
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  }

  const changeRole = (to: Role, undo: boolean) =>
    run(
      () => consoleApi.changeRole(me.organisationId, member.id, to),
      undo
        ? { text: t.member.undone }
        : { text: t.member.roleChanged(t.roles[member.role], t.roles[to]), undo: member.role },
      'role',
    );

  return (
    <section aria-labelledby="member-title">
      <p>
        <Link href={CONSOLE_PATHS.members}>{t.member.back}</Link>
      </p>
      <h2 id="member-title">{name}</h2>
      <dl className="console-facts">
        <dt>{t.members.email}</dt>
        <dd>{member.email}</dd>
        <dt>{t.members.role}</dt>
        <dd data-testid="member-role">
          {t.roles[member.role]}
          {actions.roleManagedByDirectory ? (
            <>
              {' '}
              <span className="badge">{t.scim.managedByDirectory}</span>
            </>
          ) : null}
        </dd>
        <dt>{t.members.status}</dt>
        <dd data-testid="member-status">{t.status[member.status]}</dd>
        <dt>{t.member.identityState}</dt>
        <dd>{member.identityState ?? '—'}</dd>
        <dt>{t.member.signInMethods}</dt>
        <dd>{member.signInMethods.join(', ') || '—'}</dd>
        <dt>{t.member.twoFactor}</dt>
        <dd>
          {member.twoFactor === null ? '—' : member.twoFactor ? t.member.twoFactorOn : t.member.twoFactorOff}
        </dd>
        <dt>{t.member.lastSignIn}</dt>
        <dd data-testid="member-last-sign-in">{signIn.lastSignIn}</dd>
        <dt>{t.member.lockout}</dt>
        <dd data-testid="member-lockout">
          {signIn.locked ? <strong>{signIn.lockout}</strong> : signIn.lockout}
        </dd>
        <dt>{t.members.joined}</dt>
        <dd>{formatDate(member.createdAt)}</dd>
      </dl>
      {notice && 'text' in notice ? (
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
      ) : null}
      {notice && 'error' in notice ? <p role="alert">{notice.error}</p> : null}
      {actions.note === 'self' ? <p className="muted">{t.member.self}</p> : null}
      {actions.note === 'protected' ? <p className="muted">{t.member.protected}</p> : null}
      {actions.roleManagedByDirectory ? <p className="muted">{t.scim.managedNote}</p> : null}
      {actions.canChangeRole ? (
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            if (role && role !== member.role) void changeRole(role, false);
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
          <button type="submit" className="button" disabled={busy}>
            {t.member.changeRole}
          </button>
        </form>
      ) : null}
      <div className="row">
        {actions.canDeactivate && !confirming ? (
          <button
            type="button"
            className="button secondary"
            disabled={busy}
            onClick={() => setConfirming(true)}
          >
            {t.member.deactivate}
          </button>
        ) : null}
        {actions.canReactivate ? (
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() =>
              run(
                () => consoleApi.memberAction(me.organisationId, member.id, 'reactivate'),
                { text: t.member.reactivated },
                'reactivate',
              )
            }
          >
            {t.member.reactivate}
          </button>
        ) : null}
        {actions.canEndSessions ? (
          <button
            type="button"
            className="button secondary"
            disabled={busy}
            onClick={() =>
              run(() => consoleApi.memberAction(me.organisationId, member.id, 'end-sessions'), {
                text: t.member.sessionsEnded,
              })
            }
          >
            {t.member.endSessions}
          </button>
        ) : null}
        {actions.canResetTwoFactor ? (
          <button
            type="button"
            className="button secondary"
            disabled={busy}
            onClick={() =>
              run(() => consoleApi.memberAction(me.organisationId, member.id, 'reset-2fa'), {
                text: t.member.twoFactorReset,
              })
            }
          >
            {t.member.resetTwoFactor}
          </button>
        ) : null}
        {actions.canUnlock ? (
          <button
            type="button"
            className="button secondary"
            disabled={busy}
            onClick={() =>
              run(() => consoleApi.memberAction(me.organisationId, member.id, 'unlock'), {
                text: t.member.unlocked,
              })
            }
          >
            {t.member.unlock}
          </button>
        ) : null}
      </div>
      {confirming ? (
        <div role="alertdialog" aria-labelledby="confirm-text" className="notice">
          <p id="confirm-text">{t.member.confirmDeactivate(name)}</p>
          <div className="row">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() =>
                run(() => consoleApi.memberAction(me.organisationId, member.id, 'deactivate'), {
                  text: t.member.deactivated,
                })
              }
            >
              {t.member.confirm}
            </button>
            <button type="button" className="button secondary" autoFocus onClick={() => setConfirming(false)}>
              {t.member.cancel}
            </button>
          </div>
        </div>
      ) : null}
      <h3>{t.member.recentEvents}</h3>
      {member.recentEvents.length === 0 ? <p>{t.empty.events}</p> : null}
      <ul>
        {member.recentEvents.map((e) => (
          <li key={e.id}>
            {formatDate(e.occurredAt)}: {e.type}
            {e.details.method ? ` (${t.member.methods[e.details.method] ?? e.details.method})` : ''}
            {e.ip ? `, ${e.ip}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}
