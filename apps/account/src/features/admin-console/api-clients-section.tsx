import { useState } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type ApiClient, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideApiClientForm } from './decide-api-client-form.ts';
import { failure, formatDate, useLoad } from './use-load.ts';

type Notice = { text: string } | { error: string } | null;

export function ApiClientsSection({ me }: { me: Me }) {
  const [list, reload] = useLoad('api-clients', () => consoleApi.apiClients(me.organisationId));
  const [form, setForm] = useState({ name: '', scopeGroups: '' });
  const [secret, setSecret] = useState<{ id: string; name: string; clientSecret: string } | null>(null);
  const [confirming, setConfirming] = useState<ApiClient | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);

  async function run<T>(action: () => Promise<T>, done: (value: T) => void) {
    setBusy(true);
    try {
      done(await action());
      reload();
    } catch (error) {
      setNotice({ error: failure(error).message });
    } finally {
      setBusy(false);
    }
  }

  function create() {
    const decision = decideApiClientForm(form);
    if (!decision.ok) {
      setNotice({ error: decision.error });
      return;
    }
    void run(
      () => consoleApi.createApiClient(me.organisationId, decision.body),
      (created) => {
        setSecret({ id: created.id, name: created.name, clientSecret: created.clientSecret });
        setForm({ name: '', scopeGroups: '' });
        setNotice({ text: t.apiClients.created(created.name) });
      },
    );
  }

  async function copySecret(value: string) {
    try {
      await navigator.clipboard.writeText(value);
      setNotice({ text: t.apiClients.copied });
    } catch {
      setNotice({ error: t.apiClients.copyFailed });
    }
  }

  return (
    <section aria-labelledby="api-clients-title">
      <h2 id="api-clients-title">{t.sections.apiClients}</h2>
      <form
        className="console-form"
        aria-labelledby="api-client-create-title"
        onSubmit={(event) => {
          event.preventDefault();
          create();
        }}
      >
        <h3 id="api-client-create-title">{t.apiClients.heading}</h3>
        <TextField
          label={t.apiClients.name}
          required
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.target.value })}
        />
        <TextField
          label={t.apiClients.scopeGroups}
          required
          value={form.scopeGroups}
          onChange={(e) => setForm({ ...form, scopeGroups: e.target.value })}
        />
        <button type="submit" className="button" disabled={busy}>
          {t.apiClients.create}
        </button>
      </form>
      {notice && 'text' in notice ? (
        <p role="status" className="notice">
          {notice.text}
        </p>
      ) : null}
      {notice && 'error' in notice ? <p role="alert">{notice.error}</p> : null}
      {secret ? (
        <div className="notice" role="region" aria-labelledby="api-client-secret-title">
          <h3 id="api-client-secret-title">{t.apiClients.secretHeading}</h3>
          <p>{t.apiClients.secretOnce}</p>
          <dl>
            <dt>{t.apiClients.clientId}</dt>
            <dd>
              <code data-testid="api-client-id">{secret.id}</code>
            </dd>
            <dt>{t.apiClients.secretHeading}</dt>
            <dd>
              <code data-testid="api-client-secret">{secret.clientSecret}</code>
            </dd>
          </dl>
          <div className="row">
            <button type="button" className="button" onClick={() => void copySecret(secret.clientSecret)}>
              {t.apiClients.copy}
            </button>
            <button type="button" className="button secondary" onClick={() => setSecret(null)}>
              {t.apiClients.done}
            </button>
          </div>
        </div>
      ) : null}
      {confirming ? (
        <div role="alertdialog" aria-labelledby="api-client-confirm-text" className="notice">
          <p id="api-client-confirm-text">{t.apiClients.confirmRevoke(confirming.name)}</p>
          <div className="row">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() =>
                void run(
                  () => consoleApi.revokeApiClient(me.organisationId, confirming.id),
                  () => {
                    setConfirming(null);
                    setNotice({ text: t.apiClients.revoked });
                  },
                )
              }
            >
              {t.apiClients.confirm}
            </button>
            <button type="button" className="button secondary" autoFocus onClick={() => setConfirming(null)}>
              {t.apiClients.cancel}
            </button>
          </div>
        </div>
      ) : null}
      {list.state === 'loading' ? <p role="status">{t.loading}</p> : null}
      {list.state === 'error' ? <p role="alert">{t.loadFailed(list.message)}</p> : null}
      {list.state === 'ready' && list.value.apiClients.length === 0 ? <p>{t.empty.apiClients}</p> : null}
      {list.state === 'ready' && list.value.apiClients.length > 0 ? (
        <table className="console-table">
          <thead>
            <tr>
              <th scope="col">{t.apiClients.name}</th>
              <th scope="col">{t.apiClients.groups}</th>
              <th scope="col">{t.apiClients.createdBy}</th>
              <th scope="col">{t.apiClients.createdAt}</th>
              <th scope="col">{t.apiClients.state}</th>
              <th scope="col">
                <span className="visually-hidden">{t.apiClients.revoke}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.value.apiClients.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.scopeGroups.join(', ')}</td>
                <td>{c.createdBy ?? t.apiClients.unknownCreator}</td>
                <td>{formatDate(c.createdAt)}</td>
                <td>{c.revokedAt ? t.apiClients.revokedOn(formatDate(c.revokedAt)) : t.apiClients.active}</td>
                <td>
                  {c.revokedAt ? null : (
                    <button
                      type="button"
                      className="button secondary"
                      disabled={busy}
                      aria-label={`${t.apiClients.revoke} ${c.name}`}
                      onClick={() => setConfirming(c)}
                    >
                      {t.apiClients.revoke}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
