import { useState } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Me, type Role } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { failure, formatDate, useLoad } from './use-load.ts';

export function InvitationsSection({ me }: { me: Me }) {
  const [list, reload] = useLoad('invitations', () => consoleApi.invitations(me.organisationId));
  const [form, setForm] = useState({ email: '', firstName: '', lastName: '', role: 'member' as Role });
  const [notice, setNotice] = useState<{ text: string } | { error: string } | null>(null);
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
            (ok) => ok && setForm({ email: '', firstName: '', lastName: '', role: 'member' }),
          );
        }}
      >
        <h3 id="invite-title">{t.invitations.heading}</h3>
        <TextField
          label={t.invitations.email}
          type="email"
          required
          value={form.email}
          onChange={(e) => setForm({ ...form, email: e.target.value })}
        />
        <TextField
          label={t.invitations.firstName}
          required
          value={form.firstName}
          onChange={(e) => setForm({ ...form, firstName: e.target.value })}
        />
        <TextField
          label={t.invitations.lastName}
          required
          value={form.lastName}
          onChange={(e) => setForm({ ...form, lastName: e.target.value })}
        />
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
      {notice && 'text' in notice ? (
        <p role="status" className="notice">
          {notice.text}
        </p>
      ) : null}
      {notice && 'error' in notice ? <p role="alert">{notice.error}</p> : null}
      {list.state === 'loading' ? <p role="status">{t.loading}</p> : null}
      {list.state === 'error' ? <p role="alert">{t.loadFailed(list.message)}</p> : null}
      {list.state === 'ready' && list.value.invitations.length === 0 ? <p>{t.empty.invitations}</p> : null}
      {list.state === 'ready' && list.value.invitations.length > 0 ? (
        <table className="console-table">
          <thead>
            <tr>
              <th scope="col">{t.invitations.email}</th>
              <th scope="col">{t.invitations.role}</th>
              <th scope="col">{t.invitations.state}</th>
              <th scope="col">{t.invitations.expires}</th>
              <th scope="col">
                <span className="visually-hidden">{t.invitations.resend}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.value.invitations.map((i) => (
              <tr key={i.id}>
                <td data-label={t.invitations.email}>{i.email}</td>
                <td data-label={t.invitations.role}>{t.roles[i.role]}</td>
                <td data-label={t.invitations.state}>{t.invitations.states[i.state]}</td>
                <td data-label={t.invitations.expires}>{formatDate(i.expiresAt)}</td>
                <td>
                  {i.state !== 'accepted' ? (
                    <span className="row">
                      <button
                        type="button"
                        className="button secondary"
                        disabled={busy}
                        aria-label={`${t.invitations.resend} ${i.email}`}
                        onClick={() =>
                          run(
                            () => consoleApi.invitationAction(me.organisationId, i.id, 'resend'),
                            t.invitations.resent,
                          )
                        }
                      >
                        {t.invitations.resend}
                      </button>
                      {i.state !== 'revoked' ? (
                        <button
                          type="button"
                          className="button secondary"
                          disabled={busy}
                          aria-label={`${t.invitations.revoke} ${i.email}`}
                          onClick={() =>
                            run(
                              () => consoleApi.invitationAction(me.organisationId, i.id, 'revoke'),
                              t.invitations.revoked,
                            )
                          }
                        >
                          {t.invitations.revoke}
                        </button>
                      ) : null}
                    </span>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
