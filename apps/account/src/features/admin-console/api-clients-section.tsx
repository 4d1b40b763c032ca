import { Address } from '../../shared/ui/address.tsx';
import { useState } from 'react';
import { MAX_REDIRECT_URIS } from '@acme/users-contract/console';
import { HttpError } from '../../shared/errors/http-error.ts';
import { FieldErrors } from '../../shared/ui/field-errors.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type ApiClient, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideApiClientForm, type ApiClientForm, type ApiClientKind } from './decide-api-client-form.ts';
import { ConfirmRevoke, copyText, NoticeLine, ShownOnce, TokenList, type Notice } from './token-list.tsx';
import { failure, formatDate, useLoad, type Loaded } from './use-load.ts';

const KINDS: readonly ApiClientKind[] = ['client_credentials', 'web'];
const EMPTY_FORM: ApiClientForm = {
  kind: 'client_credentials',
  name: '',
  scopeGroups: '',
  redirectUris: [''],
};
const REDIRECT_ERRORS_ID = 'api-client-redirect-errors';

/** The service's reason when it refused the redirect URIs (it names the field), else null. */
function redirectRefusal(error: unknown): string | null {
  if (!(error instanceof HttpError)) return null;
  const body = error.body as { field?: unknown; message?: unknown } | null;
  return body?.field === 'redirectUris' && typeof body.message === 'string' ? body.message : null;
}

export function ApiClientsSection({ me }: { me: Me }) {
  const [list, reload] = useLoad('api-clients', () => consoleApi.apiClients(me.organisationId));
  const [form, setForm] = useState<ApiClientForm>(EMPTY_FORM);
  const [redirectErrors, setRedirectErrors] = useState<string[]>([]);
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
      const reason = redirectRefusal(error);
      if (reason) setRedirectErrors([reason]);
      else setNotice({ error: failure(error).message });
    } finally {
      setBusy(false);
    }
  }

  function create() {
    setRedirectErrors([]);
    const decision = decideApiClientForm(form);
    if (!decision.ok) {
      if (decision.field === 'redirectUris') setRedirectErrors([decision.error]);
      else setNotice({ error: decision.error });
      return;
    }
    void run(
      () => consoleApi.createApiClient(me.organisationId, decision.body),
      (created) => {
        setSecret({ id: created.id, name: created.name, clientSecret: created.clientSecret });
        setForm({ ...EMPTY_FORM, kind: form.kind });
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
        <KindChoice
          kind={form.kind}
          onChange={(kind) => {
            setForm({ ...form, kind });
            setRedirectErrors([]);
          }}
        />
        {form.kind === 'web' ? (
          <RedirectUrisField
            uris={form.redirectUris}
            errors={redirectErrors}
            onChange={(redirectUris) => setForm({ ...form, redirectUris })}
          />
        ) : (
          <TextField
            label={t.apiClients.scopeGroups}
            required
            value={form.scopeGroups}
            onChange={(e) => setForm({ ...form, scopeGroups: e.target.value })}
          />
        )}
        <button type="submit" className="button" disabled={busy}>
          {t.apiClients.create}
        </button>
      </form>
      <NoticeLine notice={notice} />
      {secret ? <ClientSecret secret={secret} onNotice={setNotice} onDone={() => setSecret(null)} /> : null}
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
      <ApiClientList list={list} busy={busy} onRevoke={setConfirming} />
    </section>
  );
}

/** A machine's client (client credentials) or a web application's sign-in (authorization code). */
function KindChoice({
  kind: chosen,
  onChange,
}: {
  kind: ApiClientKind;
  onChange(kind: ApiClientKind): void;
}) {
  return (
    <fieldset className="console-choices" role="radiogroup" aria-labelledby="api-client-kind-legend">
      <legend id="api-client-kind-legend">{t.apiClients.kindLegend}</legend>
      {KINDS.map((kind) => (
        <div className="checkbox" key={kind}>
          <input
            id={`api-client-kind-${kind}`}
            type="radio"
            name="api-client-kind"
            value={kind}
            checked={chosen === kind}
            onChange={() => onChange(kind)}
          />
          <label htmlFor={`api-client-kind-${kind}`}>{t.apiClients.kinds[kind]}</label>
        </div>
      ))}
    </fieldset>
  );
}

/** A web application's redirect URIs: one field each, up to MAX_REDIRECT_URIS, with the service's refusal. */
function RedirectUrisField({
  uris,
  errors,
  onChange,
}: {
  uris: string[];
  errors: string[];
  onChange(uris: string[]): void;
}) {
  return (
    <fieldset className="console-mapping" aria-describedby="api-client-redirect-hint">
      <legend>{t.apiClients.redirectUris}</legend>
      <p id="api-client-redirect-hint" className="hint">
        {t.apiClients.redirectUrisHint}
      </p>
      {uris.map((uri, index) => (
        // Rows have no identity beyond their place; their values are the form's state.
        <div className="row" key={index}>
          <TextField
            label={t.apiClients.redirectUri(index + 1)}
            type="url"
            value={uri}
            aria-invalid={errors.length > 0 || undefined}
            aria-describedby={errors.length > 0 ? REDIRECT_ERRORS_ID : undefined}
            onChange={(e) => onChange(uris.map((u, i) => (i === index ? e.target.value : u)))}
          />
          {uris.length > 1 ? (
            <button
              type="button"
              className="button secondary console-inline-button"
              onClick={() => onChange(uris.filter((_, i) => i !== index))}
            >
              {t.apiClients.removeRedirect(index + 1)}
            </button>
          ) : null}
        </div>
      ))}
      <FieldErrors id={REDIRECT_ERRORS_ID} errors={errors} />
      {uris.length < MAX_REDIRECT_URIS ? (
        <button type="button" className="button secondary" onClick={() => onChange([...uris, ''])}>
          {t.apiClients.addRedirect}
        </button>
      ) : null}
    </fieldset>
  );
}

/** A new client's id and secret, shown this once. */
function ClientSecret({
  secret,
  onNotice,
  onDone,
}: {
  secret: { id: string; clientSecret: string };
  onNotice(notice: Notice): void;
  onDone(): void;
}) {
  return (
    <ShownOnce
      titleId="api-client-secret-title"
      level={3}
      heading={t.apiClients.secretHeading}
      warning={t.apiClients.secretOnce}
      copyLabel={t.shownSecret.copy}
      onCopy={() =>
        void copyText(secret.clientSecret, t.shownSecret.copied, t.shownSecret.copyFailed).then(onNotice)
      }
      doneLabel={t.shownSecret.done}
      onDone={onDone}
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
  );
}

/** The organisation's clients, each with Revoke while it is active. */
function ApiClientList({
  list,
  busy,
  onRevoke,
}: {
  list: Loaded<{ apiClients: ApiClient[] }>;
  busy: boolean;
  onRevoke(client: ApiClient): void;
}) {
  return (
    <TokenList
      list={list}
      empty={t.empty.apiClients}
      columns={[
        t.apiClients.name,
        t.apiClients.kind,
        t.apiClients.groupsOrRedirects,
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
            t.apiClients.kinds[c.kind],
            <code key="uses">{c.kind === 'web' ? c.redirectUris.join(', ') : c.scopeGroups.join(', ')}</code>,
            c.createdBy ? <Address key="by">{c.createdBy}</Address> : t.apiClients.unknownCreator,
            formatDate(c.createdAt),
            c.revokedAt ? t.apiClients.revokedOn(formatDate(c.revokedAt)) : t.apiClients.active,
          ],
          revoke: c.revokedAt
            ? null
            : { label: `${t.apiClients.revoke} ${c.name}`, onClick: () => onRevoke(c) },
        }))
      }
    />
  );
}
