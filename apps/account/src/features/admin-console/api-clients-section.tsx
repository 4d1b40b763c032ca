import { useState } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type ApiClient, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideApiClientForm } from './decide-api-client-form.ts';
import { ConfirmRevoke, copyText, NoticeLine, ShownOnce, TokenList, type Notice } from './token-list.tsx';
import { failure, formatDate, useLoad } from './use-load.ts';

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
      <NoticeLine notice={notice} />
      {secret ? (
        <ShownOnce
          titleId="api-client-secret-title"
          level={3}
          heading={t.apiClients.secretHeading}
          warning={t.apiClients.secretOnce}
          copyLabel={t.apiClients.copy}
          onCopy={() =>
            void copyText(secret.clientSecret, t.apiClients.copied, t.apiClients.copyFailed).then(setNotice)
          }
          doneLabel={t.apiClients.done}
          onDone={() => setSecret(null)}
        >
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
        </ShownOnce>
      ) : null}
      {confirming ? (
        <ConfirmRevoke
          textId="api-client-confirm-text"
          text={t.apiClients.confirmRevoke(confirming.name)}
          confirmLabel={t.apiClients.confirm}
          cancelLabel={t.apiClients.cancel}
          busy={busy}
          onConfirm={() =>
            void run(
              () => consoleApi.revokeApiClient(me.organisationId, confirming.id),
              () => {
                setConfirming(null);
                setNotice({ text: t.apiClients.revoked });
              },
            )
          }
          onCancel={() => setConfirming(null)}
        />
      ) : null}
      <TokenList
        list={list}
        empty={t.empty.apiClients}
        columns={[
          t.apiClients.name,
          t.apiClients.groups,
          t.apiClients.createdBy,
          t.apiClients.createdAt,
          t.apiClients.state,
        ]}
        revokeLabel={t.apiClients.revoke}
        busy={busy}
        rows={({ apiClients }) =>
          apiClients.map((c) => ({
            id: c.id,
            cells: [
              c.name,
              c.scopeGroups.join(', '),
              c.createdBy ?? t.apiClients.unknownCreator,
              formatDate(c.createdAt),
              c.revokedAt ? t.apiClients.revokedOn(formatDate(c.revokedAt)) : t.apiClients.active,
            ],
            revoke: c.revokedAt
              ? null
              : { label: `${t.apiClients.revoke} ${c.name}`, onClick: () => setConfirming(c) },
          }))
        }
      />
    </section>
  );
}
