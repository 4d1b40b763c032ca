import { useEffect, useRef, useState, type ReactNode } from 'react';
import type {
  ConsoleSamlInput,
  ConsoleSamlProvider,
  ConsoleSso,
  ConsoleSsoInput,
  ConsoleSsoProvider,
  SamlConnectionInput,
  SsoConnectionReport,
  SsoTestSignInResult,
} from '@acme/users-contract/console-sso';
import { Checkbox } from '../../shared/ui/checkbox.tsx';
import { FieldErrors } from '../../shared/ui/field-errors.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy } from './copy.ts';
import {
  decideSamlForm,
  decideSsoForm,
  type SamlFormField,
  type SamlFormFields,
  type SsoFormField,
  type SsoFormFields,
} from './decide-sso-form.ts';
import { selectSamlCertificates } from './select-saml-certificates.ts';
import { NoticeLine, type Notice } from './token-list.tsx';
import { decideSsoTestMessage, SSO_TEST_CHANNEL } from './decide-sso-test-message.ts';
import { selectSsoChecks } from './select-sso-checks.ts';
import { failure, formatDate, useLoad } from './use-load.ts';
import { Loading } from '../../shared/ui/progress.tsx';

const t = consoleCopy.sso;

const POPUP_FEATURES = 'popup,width=520,height=700';

function fieldsOf(sso: ConsoleSso | null): SsoFormFields {
  const p = sso?.provider?.protocol === 'oidc' ? sso.provider : undefined;
  return {
    issuer: p?.issuer ?? '',
    clientId: p?.clientId ?? '',
    clientSecret: '',
    scopes: (p?.scopes ?? ['openid', 'email', 'profile']).join(' '),
    jit: p?.jit ?? true,
    enforce: p?.enforce ?? false,
  };
}

/** The console's Single sign-on section (ConfigureSSO). */
export function SsoSection({ me }: { me: Me }) {
  const [loaded, reload] = useLoad('sso', () => consoleApi.sso(me.organisationId));
  const sso = loaded.state === 'ready' ? loaded.value : null;
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [report, setReport] = useState<SsoConnectionReport | null>(null);
  const [result, setResult] = useState<SsoTestSignInResult | null>(null);
  const test = useSsoTest(me.organisationId, setNotice, setResult);

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setNotice(null);
    try {
      await action();
    } catch (error) {
      setNotice({ error: failure(error).message });
    } finally {
      setBusy(false);
    }
  }

  function save(body: ConsoleSsoInput) {
    void run(async () => {
      await consoleApi.setSso(me.organisationId, body);
      setNotice({ text: t.saved });
      setReport(null);
      setResult(null);
      reload();
    });
  }

  /** Test connection: the stored provider, or SAML metadata checked before it is saved (the form's). */
  function check(body?: SamlConnectionInput) {
    void run(async () => {
      setReport(null);
      setNotice({ text: t.testingConnection });
      setReport(await consoleApi.testSsoConnection(me.organisationId, body));
      setNotice(null);
    });
  }

  const hasProvider = Boolean(sso?.provider);

  return (
    <section aria-labelledby="sso-title">
      <h2 id="sso-title">{consoleCopy.sections.sso}</h2>
      <p>{t.intro}</p>
      {loaded.state === 'loading' ? <Loading label={consoleCopy.loading} /> : null}
      {loaded.state === 'error' ? <p role="alert">{consoleCopy.loadFailed(loaded.message)}</p> : null}
      <NoticeLine notice={notice} />
      {sso && !sso.provider ? <p>{consoleCopy.empty.sso}</p> : null}
      {sso?.provider ? <CurrentProvider provider={sso.provider} /> : null}
      {sso ? (
        // Keyed by the stored provider: a save or removal starts the form again from what is stored.
        <ProviderEditor
          key={sso.provider?.updatedAt ?? 'none'}
          sso={sso}
          busy={busy}
          onSave={save}
          onCheck={check}
          onNotice={setNotice}
        />
      ) : null}
      {hasProvider ? (
        <div className="row">
          <button type="button" className="button secondary" disabled={busy} onClick={() => check()}>
            {t.testConnection}
          </button>
          {sso?.provider?.protocol === 'oidc' ? (
            <button type="button" className="button secondary" disabled={busy} onClick={test.start}>
              {t.testSignIn}
            </button>
          ) : null}
          <button
            type="button"
            className="button secondary"
            disabled={busy}
            onClick={() => setConfirming(true)}
          >
            {t.remove}
          </button>
        </div>
      ) : sso ? (
        <p className="muted">{t.saveFirst}</p>
      ) : null}
      {hasProvider ? (
        <p className="muted">
          {sso?.provider?.protocol === 'saml' ? t.saml.testSignInOidcOnly : t.testSignInHelp}
        </p>
      ) : null}
      {test.waiting ? <p role="status">{t.testWaiting}</p> : null}
      {confirming ? (
        <ConfirmRemove
          busy={busy}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            void run(async () => {
              await consoleApi.removeSso(me.organisationId);
              setConfirming(false);
              setReport(null);
              setResult(null);
              setNotice({ text: t.removed });
              reload();
            })
          }
        />
      ) : null}
      {report ? <ConnectionReport report={report} /> : null}
      {result ? <TestResult result={result} /> : null}
    </section>
  );
}

/** The stored provider's facts: OIDC issuer and client, or the SAML IdP's metadata and certificates. */
function CurrentProvider({ provider }: { provider: ConsoleSsoProvider }) {
  return (
    <div role="region" aria-labelledby="sso-current-title">
      <h3 id="sso-current-title">{t.current}</h3>
      <dl className="console-facts">
        <dt>{t.protocolShort}</dt>
        <dd>{provider.protocol === 'saml' ? t.protocolSaml : t.protocolOidc}</dd>
        <dt>{t.providerId}</dt>
        <dd>{provider.provider}</dd>
        {provider.protocol === 'saml' ? (
          <>
            <dt>{t.saml.idpEntityId}</dt>
            <dd>{provider.idpEntityId}</dd>
            <dt>{t.saml.ssoUrl}</dt>
            <dd>{provider.ssoUrl}</dd>
            <dt>{t.saml.metadataSource}</dt>
            <dd>{provider.metadataUrl ? t.saml.fromUrl(provider.metadataUrl) : t.saml.pasted}</dd>
            <dt>{t.saml.fetched}</dt>
            <dd>{formatDate(provider.fetchedAt)}</dd>
          </>
        ) : (
          <>
            <dt>{t.issuer}</dt>
            <dd>{provider.issuer}</dd>
            <dt>{t.clientId}</dt>
            <dd>{provider.clientId}</dd>
          </>
        )}
        <dt>{t.jitShort}</dt>
        <dd>{provider.jit ? t.on : t.off}</dd>
        <dt>{t.enforceShort}</dt>
        <dd>{provider.enforce ? t.on : t.off}</dd>
        <dt>{t.updated}</dt>
        <dd>{formatDate(provider.updatedAt)}</dd>
      </dl>
      {provider.protocol === 'saml' && provider.refreshError ? (
        <p role="alert">{t.saml.refreshFailed(t.reasons[provider.refreshError] ?? provider.refreshError)}</p>
      ) : null}
      {provider.protocol === 'saml' ? <Certificates provider={provider} /> : null}
    </div>
  );
}

function Certificates({ provider }: { provider: ConsoleSamlProvider }) {
  // The time the section was shown: a certificate's state is not re-judged on every render.
  const [shownAt] = useState(() => Date.now());
  const rows = selectSamlCertificates(provider.certificates, shownAt);
  return (
    <table className="console-table" aria-labelledby="sso-certificates-title">
      <caption id="sso-certificates-title">{t.saml.certificatesHeading}</caption>
      <thead>
        <tr>
          <th scope="col">{t.saml.fingerprint}</th>
          <th scope="col">{t.saml.expires}</th>
          <th scope="col">{t.saml.status}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.fingerprint} data-state={row.state}>
            <td>
              <code>{row.fingerprint}</code>
            </td>
            <td>{row.expires}</td>
            <td>{row.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Protocol choice, what to register at the provider, the form for that protocol, and instructions. */
function ProviderEditor({
  sso,
  busy,
  onSave,
  onCheck,
  onNotice,
}: {
  sso: ConsoleSso;
  busy: boolean;
  onSave: (body: ConsoleSsoInput) => void;
  onCheck: (body: SamlConnectionInput) => void;
  onNotice: (notice: Notice) => void;
}) {
  const [protocol, setProtocol] = useState<'oidc' | 'saml'>(sso.provider?.protocol ?? 'oidc');
  const choices = [
    { value: 'oidc', label: t.protocolOidc },
    { value: 'saml', label: t.protocolSaml },
  ] as const;
  return (
    <>
      <fieldset className="console-form">
        <legend>{t.protocolLegend}</legend>
        {choices.map((choice) => (
          <div className="checkbox" key={choice.value}>
            <input
              id={`sso-protocol-${choice.value}`}
              type="radio"
              name="sso-protocol"
              value={choice.value}
              checked={protocol === choice.value}
              onChange={() => setProtocol(choice.value)}
            />
            <label htmlFor={`sso-protocol-${choice.value}`}>{choice.label}</label>
          </div>
        ))}
      </fieldset>
      {protocol === 'saml' ? (
        <>
          <CopyableUris
            id="sso-sp"
            heading={t.saml.spHeading}
            uris={[
              { label: t.saml.spEntityId, value: sso.serviceProvider.entityId, id: 'sso-sp-entity-id' },
              { label: t.saml.spAcs, value: sso.serviceProvider.acsUrl, id: 'sso-sp-acs' },
              { label: t.saml.spMetadata, value: sso.serviceProvider.metadataUrl, id: 'sso-sp-metadata' },
            ]}
            onNotice={onNotice}
          >
            <a
              href={sso.serviceProvider.metadataUrl}
              download={`${sso.serviceProvider.entityId.split('/').pop()}-sp-metadata.xml`}
            >
              {t.saml.spDownload}
            </a>
          </CopyableUris>
          <SamlForm sso={sso} busy={busy} onSave={onSave} onCheck={onCheck} />
          <Instructions list={Object.values(t.saml.instructions)} />
        </>
      ) : (
        <>
          <CopyableUris
            id="sso-redirect"
            heading={t.redirectHeading}
            uris={[
              { label: t.redirectSignIn, value: sso.redirectUris.signIn, id: 'sso-redirect-sign-in' },
              { label: t.redirectTest, value: sso.redirectUris.testSignIn, id: 'sso-redirect-test' },
            ]}
            onNotice={onNotice}
          />
          <ProviderForm sso={sso} busy={busy} onSave={onSave} />
          <Instructions list={Object.values(t.instructions)} />
        </>
      )}
    </>
  );
}

/** The SAML form: the IdP metadata by URL or pasted, and the two switches. */
function SamlForm({
  sso,
  busy,
  onSave,
  onCheck,
}: {
  sso: ConsoleSso;
  busy: boolean;
  onSave: (body: ConsoleSsoInput) => void;
  onCheck: (body: SamlConnectionInput) => void;
}) {
  const stored = sso.provider?.protocol === 'saml' ? sso.provider : undefined;
  const [form, setForm] = useState<SamlFormFields>({
    source: stored && !stored.metadataUrl ? 'xml' : 'url',
    metadataUrl: stored?.metadataUrl ?? '',
    metadataXml: '',
    jit: sso.provider?.jit ?? true,
    enforce: sso.provider?.enforce ?? false,
  });
  const [fieldError, setFieldError] = useState<{ field: SamlFormField; error: string } | null>(null);
  const xmlErrors = fieldError?.field === 'metadataXml' ? [fieldError.error] : [];
  const sources = [
    { value: 'url', label: t.saml.sourceUrl },
    { value: 'xml', label: t.saml.sourceXml },
  ] as const;

  /** The form's body, or null after showing which field is wrong. */
  function decided(): ConsoleSamlInput | null {
    const decision = decideSamlForm(form);
    if (!decision.ok) {
      setFieldError({ field: decision.field, error: decision.error });
      return null;
    }
    setFieldError(null);
    return decision.body;
  }

  function submit() {
    const body = decided();
    if (body) onSave(body);
  }

  function checkFirst() {
    const body = decided();
    if (!body) return;
    onCheck({
      protocol: 'saml',
      ...(body.metadataUrl === undefined ? {} : { metadataUrl: body.metadataUrl }),
      ...(body.metadataXml === undefined ? {} : { metadataXml: body.metadataXml }),
    });
  }

  return (
    <form
      className="console-form"
      aria-labelledby="sso-saml-form-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <h3 id="sso-saml-form-title">{t.formHeading}</h3>
      <fieldset>
        <legend>{t.saml.sourceLegend}</legend>
        {sources.map((source) => (
          <div className="checkbox" key={source.value}>
            <input
              id={`sso-saml-source-${source.value}`}
              type="radio"
              name="sso-saml-source"
              value={source.value}
              checked={form.source === source.value}
              onChange={() => setForm({ ...form, source: source.value })}
            />
            <label htmlFor={`sso-saml-source-${source.value}`}>{source.label}</label>
          </div>
        ))}
      </fieldset>
      {form.source === 'url' ? (
        <TextField
          label={t.saml.metadataUrl}
          type="url"
          required
          placeholder={t.saml.metadataUrlHint}
          value={form.metadataUrl}
          errors={fieldError?.field === 'metadataUrl' ? [fieldError.error] : []}
          onChange={(e) => setForm({ ...form, metadataUrl: e.target.value })}
        />
      ) : (
        <div className="field">
          <label htmlFor="sso-saml-xml">{t.saml.metadataXml}</label>
          <textarea
            id="sso-saml-xml"
            rows={8}
            spellCheck={false}
            required
            aria-invalid={xmlErrors.length > 0 || undefined}
            aria-describedby={xmlErrors.length > 0 ? 'sso-saml-xml-error' : undefined}
            value={form.metadataXml}
            onChange={(e) => setForm({ ...form, metadataXml: e.target.value })}
          />
          <FieldErrors id="sso-saml-xml-error" errors={xmlErrors} />
        </div>
      )}
      <SsoSwitches form={form} onChange={(change) => setForm({ ...form, ...change })} />
      <div className="row">
        <button type="submit" className="button" disabled={busy}>
          {t.save}
        </button>
        <button type="button" className="button secondary" disabled={busy} onClick={checkFirst}>
          {t.saml.checkMetadata}
        </button>
      </div>
    </form>
  );
}

/** Both protocols' switches: accounts at first sign-in (JIT) and SSO required (enforce). */
function SsoSwitches({
  form,
  onChange,
}: {
  form: { jit: boolean; enforce: boolean };
  onChange: (change: { jit: boolean } | { enforce: boolean }) => void;
}) {
  return (
    <>
      <Checkbox checked={form.jit} onChange={(jit) => onChange({ jit })}>
        {t.jit}
      </Checkbox>
      <Checkbox checked={form.enforce} onChange={(enforce) => onChange({ enforce })}>
        {t.enforce}
      </Checkbox>
    </>
  );
}

/** The provider form: starts from what is stored, never the secret. */
function ProviderForm({
  sso,
  busy,
  onSave,
}: {
  sso: ConsoleSso;
  busy: boolean;
  onSave: (body: ConsoleSsoInput) => void;
}) {
  const [form, setForm] = useState<SsoFormFields>(() => fieldsOf(sso));
  const [fieldError, setFieldError] = useState<{ field: SsoFormField; error: string } | null>(null);
  // A stored secret exists only for a stored OIDC provider.
  const hasProvider = sso.provider?.protocol === 'oidc';
  const errorsOf = (field: SsoFormField) => (fieldError?.field === field ? [fieldError.error] : []);

  function submit() {
    const decision = decideSsoForm(form, hasProvider);
    if (!decision.ok) {
      setFieldError({ field: decision.field, error: decision.error });
      return;
    }
    setFieldError(null);
    onSave(decision.body);
  }

  return (
    <form
      className="console-form"
      aria-labelledby="sso-form-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <h3 id="sso-form-title">{t.formHeading}</h3>
      <TextField
        label={t.issuer}
        type="url"
        required
        placeholder={t.issuerHint}
        value={form.issuer}
        errors={errorsOf('issuer')}
        onChange={(e) => setForm({ ...form, issuer: e.target.value })}
      />
      <TextField
        label={t.clientId}
        required
        value={form.clientId}
        errors={errorsOf('clientId')}
        onChange={(e) => setForm({ ...form, clientId: e.target.value })}
      />
      <TextField
        label={hasProvider ? t.clientSecretKeep : t.clientSecret}
        type="password"
        autoComplete="new-password"
        required={!hasProvider}
        value={form.clientSecret}
        errors={errorsOf('clientSecret')}
        onChange={(e) => setForm({ ...form, clientSecret: e.target.value })}
      />
      <p className="muted">{t.secretWriteOnly}</p>
      <TextField
        label={t.scopes}
        required
        value={form.scopes}
        errors={errorsOf('scopes')}
        onChange={(e) => setForm({ ...form, scopes: e.target.value })}
      />
      <SsoSwitches form={form} onChange={(change) => setForm({ ...form, ...change })} />
      <button type="submit" className="button" disabled={busy}>
        {t.save}
      </button>
    </form>
  );
}

/** Test sign-in: a popup at the provider; its callback page hands the answer back to this page. */
function useSsoTest(
  organisationId: string,
  setNotice: (notice: Notice) => void,
  setResult: (result: SsoTestSignInResult | null) => void,
) {
  const popup = useRef<Window | null>(null);
  const [expectedState, setExpectedState] = useState<string | null>(null);

  useEffect(() => {
    if (expectedState === null) return;
    const channel = new BroadcastChannel(SSO_TEST_CHANNEL);
    function onMessage(event: MessageEvent, viaChannel = false) {
      const decision = decideSsoTestMessage({
        // A BroadcastChannel carries same-origin messages only.
        origin: viaChannel ? window.location.origin : event.origin,
        ownOrigin: window.location.origin,
        fromPopup: viaChannel || (popup.current !== null && event.source === popup.current),
        data: event.data,
        expectedState,
      });
      if (decision.type !== 'complete') return;
      setExpectedState(null);
      consoleApi.completeSsoTest(organisationId, decision.body).then(
        (result) => {
          setResult(result);
          setNotice({ text: t.testOk });
        },
        (error: unknown) => setNotice({ error: failure(error).message }),
      );
    }
    // No watch on popup.closed: a provider page with Cross-Origin-Opener-Policy makes the popup look
    // closed while the person is still signing in there. Test sign-in may simply be started again.
    const onWindowMessage = (event: MessageEvent) => onMessage(event);
    window.addEventListener('message', onWindowMessage);
    channel.onmessage = (event) => onMessage(event, true);
    return () => {
      window.removeEventListener('message', onWindowMessage);
      channel.close();
    };
  }, [expectedState, organisationId, setNotice, setResult]);

  function start() {
    setResult(null);
    // Opened at once, in the click, so that popup blockers let it through; its address comes after.
    const opened = window.open('about:blank', 'sso-test-sign-in', POPUP_FEATURES);
    if (!opened) {
      setNotice({ error: t.popupBlocked });
      return;
    }
    popup.current = opened;
    setNotice(null);
    consoleApi.startSsoTest(organisationId).then(
      (started) => {
        setExpectedState(started.state);
        opened.location.href = started.authorizationUrl;
      },
      (error: unknown) => {
        opened.close();
        setNotice({ error: failure(error).message });
      },
    );
  }

  return { start, waiting: expectedState !== null };
}

/** URLs to register at the provider, each with a copy button. */
function CopyableUris({
  id,
  heading,
  uris,
  onNotice,
  children,
}: {
  id: string;
  heading: string;
  uris: { label: string; value: string; id: string }[];
  onNotice: (notice: Notice) => void;
  children?: ReactNode;
}) {
  async function copy(value: string) {
    try {
      await navigator.clipboard.writeText(value);
      onNotice({ text: t.copied });
    } catch {
      onNotice({ error: t.copyFailed });
    }
  }
  return (
    <div role="region" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{heading}</h3>
      <dl className="console-facts">
        {uris.map((u) => (
          <div key={u.id} className="console-uri">
            <dt id={`${u.id}-label`}>{u.label}</dt>
            <dd>
              <code data-testid={u.id}>{u.value}</code>{' '}
              <button type="button" className="button secondary" onClick={() => void copy(u.value)}>
                {t.copyUri(u.label.charAt(0).toLowerCase() + u.label.slice(1))}
              </button>
            </dd>
          </div>
        ))}
      </dl>
      {children}
    </div>
  );
}

function ConnectionReport({ report }: { report: SsoConnectionReport }) {
  const { summary, rows } = selectSsoChecks(report);
  return (
    <div role="region" aria-labelledby="sso-connection-title">
      <h3 id="sso-connection-title">{t.connectionHeading}</h3>
      <p role="status">{summary}</p>
      <ul className="console-checks">
        {rows.map((row) => (
          <li key={row.key} data-ok={row.ok}>
            <strong>{row.ok ? t.passed : t.failed}:</strong> {row.label}
            {row.detail ? ` (${row.detail})` : ''}
          </li>
        ))}
      </ul>
    </div>
  );
}

function TestResult({ result }: { result: SsoTestSignInResult }) {
  const yesNo = (v: boolean | null) => (v === null ? t.unknown : v ? t.yes : t.no);
  const name = [result.mapped.firstName, result.mapped.lastName].filter(Boolean).join(' ');
  return (
    <div role="region" aria-labelledby="sso-result-title">
      <h3 id="sso-result-title">{t.testHeading}</h3>
      <dl className="console-facts">
        <dt>{t.mappedEmail}</dt>
        <dd>{result.mapped.email ?? t.unknown}</dd>
        <dt>{t.mappedVerified}</dt>
        <dd>{yesNo(result.mapped.emailVerified)}</dd>
        <dt>{t.mappedName}</dt>
        <dd>{name || t.unknown}</dd>
      </dl>
      <p>{result.domainMatches ? t.domainMatches : t.domainMismatch}</p>
      <h4>{t.claimsHeading}</h4>
      <table className="console-table">
        <tbody>
          {Object.entries(result.claims).map(([claim, value]) => (
            <tr key={claim}>
              <th scope="row">{claim}</th>
              <td>
                <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Instructions({ list }: { list: readonly { name: string; steps: string }[] }) {
  return (
    <div role="region" aria-labelledby="sso-instructions-title">
      <h3 id="sso-instructions-title">{t.instructionsHeading}</h3>
      {list.map((provider) => (
        <div key={provider.name}>
          <h4>{provider.name}</h4>
          <p>{provider.steps}</p>
        </div>
      ))}
    </div>
  );
}

/** "Remove single sign-on?": the confirmation, with Cancel focused. */
function ConfirmRemove({
  busy,
  onConfirm,
  onCancel,
}: {
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  return (
    <div role="alertdialog" aria-labelledby="sso-confirm-text" className="notice">
      <p id="sso-confirm-text">{t.confirmRemove}</p>
      <div className="row">
        <button type="button" className="button" disabled={busy} onClick={onConfirm}>
          {t.confirm}
        </button>
        <button type="button" className="button secondary" autoFocus onClick={onCancel}>
          {t.cancel}
        </button>
      </div>
    </div>
  );
}
