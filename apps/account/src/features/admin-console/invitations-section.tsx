import { Address } from '../../shared/ui/address.tsx';
import { useState } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Invitation, type Me, type Role } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { failure, formatDate, useLoad } from './use-load.ts';
import { ConsoleTable } from './console-table.tsx';
import { Loadable } from './loadable.tsx';
import { NoticeLine, type Notice } from './token-list.tsx';

const EMPTY_FORM = { email: '', firstName: '', lastName: '', role: 'member' as Role };

/** The form's text fields, in their order (each labelled by its name in the copy). */
const TEXT_FIELDS = [
  { name: 'email', type: 'email' },
  { name: 'firstName', type: 'text' },
  { name: 'lastName', type: 'text' },
] as const;

type InvitationAction = 'resend' | 'revoke';

/** What an admin may still do with an invitation: nothing once accepted, only resend once revoked. */
const ACTIONS: Record<Invitation['state'], readonly InvitationAction[]> = {
  pending: ['resend', 'revoke'],
  expired: ['resend', 'revoke'],
  revoked: ['resend'],
  accepted: [],
};

export function InvitationsSection({ me }: { me: Me }) {
  const [list, reload] = useLoad('invitations', () => consoleApi.invitations(me.organisationId));
  const [form, setForm] = useState(EMPTY_FORM);
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<unknown>, text: string) {
    setBusy(true);
    try {
      await action();
      setNotice({ text });
      reload();
      return true;
    } catch (error) {
      setNotice({ error: failure(error).message });
      return false;
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">{t.sections.invitations}</h2>
      <form
        className="console-form"
        aria-labelledby="invite-title"
        onSubmit={(event) => {
          event.preventDefault();
          void run(() => consoleApi.invite(me.organisationId, form), t.invitations.sent(form.email)).then(
            (ok) => ok && setForm(EMPTY_FORM),
          );
        }}
      >
        <h3 id="invite-title">{t.invitations.heading}</h3>
        {TEXT_FIELDS.map(({ name, type }) => (
          <TextField
            key={name}
            label={t.invitations[name]}
            type={type}
            required
            value={form[name]}
            onChange={(e) => setForm({ ...form, [name]: e.target.value })}
          />
        ))}
        <div className="field">
          <label htmlFor="invite-role">{t.invitations.role}</label>
          <select
            id="invite-role"
            value={form.role}
            onChange={(e) => setForm({ ...form, role: e.target.value as Role })}
          >
            {me.assignableRoles.map((r) => (
              <option key={r} value={r}>
                {t.roles[r]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {t.invitations.send}
        </button>
      </form>
      <NoticeLine notice={notice} />
      <Loadable loaded={list}>
        {({ invitations }) =>
          invitations.length === 0 ? (
            <p>{t.empty.invitations}</p>
          ) : (
            <InvitationTable
              invitations={invitations}
              busy={busy}
              onAction={(invitation, action) =>
                run(
                  () => consoleApi.invitationAction(me.organisationId, invitation.id, action),
                  action === 'resend' ? t.invitations.resent : t.invitations.revoked,
                )
              }
            />
          )
        }
      </Loadable>
    </section>
  );
}

/** The organisation's invitations, each with the buttons of what may still be done with it. */
function InvitationTable({
  invitations,
  busy,
  onAction,
}: {
  invitations: Invitation[];
  busy: boolean;
  onAction(invitation: Invitation, action: InvitationAction): void;
}) {
  return (
    <ConsoleTable
      columns={[t.invitations.email, t.invitations.role, t.invitations.state, t.invitations.expires]}
      actionLabel={t.invitations.resend}
      rows={invitations.map((i) => ({
        key: i.id,
        cells: [
          <Address key="email">{i.email}</Address>,
          t.roles[i.role],
          t.invitations.states[i.state],
          formatDate(i.expiresAt),
        ],
        action:
          ACTIONS[i.state].length > 0 ? (
            <span className="row">
              {ACTIONS[i.state].map((action) => (
                <button
                  key={action}
                  type="button"
                  className="button secondary"
                  disabled={busy}
                  aria-label={`${t.invitations[action]} ${i.email}`}
                  onClick={() => onAction(i, action)}
                >
                  {t.invitations[action]}
                </button>
              ))}
            </span>
          ) : null,
      }))}
    />
  );
}
