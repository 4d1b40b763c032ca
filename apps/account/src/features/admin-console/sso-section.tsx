import { useEffect, useRef, useState } from 'react';
import type {
  ConsoleSso,
  ConsoleSsoInput,
  SsoConnectionReport,
  SsoTestSignInResult,
} from '@acme/users-contract/console-sso';
import { Checkbox } from '../../shared/ui/checkbox.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy } from './copy.ts';
import { decideSsoForm, type SsoFormField, type SsoFormFields } from './decide-sso-form.ts';
import { decideSsoTestMessage, SSO_TEST_CHANNEL } from './decide-sso-test-message.ts';
import { selectSsoChecks } from './select-sso-checks.ts';
import { failure, formatDate, useLoad } from './use-load.ts';

const t = consoleCopy.sso;

type Notice = { text: string } | { error: string } | null;

const POPUP_FEATURES = 'popup,width=520,height=700';

function fieldsOf(sso: ConsoleSso | null): SsoFormFields {
  const p = sso?.provider;
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

  const hasProvider = Boolean(sso?.provider);

  return (
    <section aria-labelledby="sso-title">
      <h2 id="sso-title">{consoleCopy.sections.sso}</h2>
      <p>{t.intro}</p>
      {loaded.state === 'loading' ? <p role="status">{consoleCopy.loading}</p> : null}
      {loaded.state === 'error' ? <p role="alert">{consoleCopy.loadFailed(loaded.message)}</p> : null}
      {notice && 'text' in notice ? (
        <p role="status" className="notice">
          {notice.text}
        </p>
      ) : null}
      {notice && 'error' in notice ? <p role="alert">{notice.error}</p> : null}
      {sso ? <RedirectUris sso={sso} onNotice={setNotice} /> : null}
      {sso && !sso.provider ? <p>{consoleCopy.empty.sso}</p> : null}
      {sso?.provider ? (
        <div role="region" aria-labelledby="sso-current-title">
          <h3 id="sso-current-title">{t.current}</h3>
          <dl className="console-facts">
            <dt>{t.providerId}</dt>
            <dd>{sso.provider.provider}</dd>
            <dt>{t.issuer}</dt>
            <dd>{sso.provider.issuer}</dd>
            <dt>{t.clientId}</dt>
            <dd>{sso.provider.clientId}</dd>
            <dt>{t.jitShort}</dt>
            <dd>{sso.provider.jit ? t.on : t.off}</dd>
            <dt>{t.enforceShort}</dt>
            <dd>{sso.provider.enforce ? t.on : t.off}</dd>
            <dt>{t.updated}</dt>
            <dd>{formatDate(sso.provider.updatedAt)}</dd>
          </dl>
        </div>
      ) : null}
      {sso ? (
        // Keyed by the stored provider: a save or removal starts the form again from what is stored.
        <ProviderForm key={sso.provider?.updatedAt ?? 'none'} sso={sso} busy={busy} onSave={save} />
      ) : null}
      {hasProvider ? (
        <div className="row">
          <button
            type="button"
            className="button secondary"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                setReport(null);
                setNotice({ text: t.testingConnection });
                setReport(await consoleApi.testSsoConnection(me.organisationId));
                setNotice(null);
              })
            }
          >
            {t.testConnection}
          </button>
          <button type="button" className="button secondary" disabled={busy} onClick={test.start}>
            {t.testSignIn}
          </button>
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
      {hasProvider ? <p className="muted">{t.testSignInHelp}</p> : null}
      {test.waiting ? <p role="status">{t.testWaiting}</p> : null}
      {confirming ? (
        <div role="alertdialog" aria-labelledby="sso-confirm-text" className="notice">
          <p id="sso-confirm-text">{t.confirmRemove}</p>
          <div className="row">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() =>
                void run(async () => {
                  await consoleApi.removeSso(me.organisationId);
                  setConfirming(false);
                  setReport(null);
                  setResult(null);
                  setNotice({ text: t.removed });
                  reload();
                })
              }
            >
              {t.confirm}
            </button>
            <button type="button" className="button secondary" autoFocus onClick={() => setConfirming(false)}>
              {t.cancel}
            </button>
          </div>
        </div>
      ) : null}
      {report ? <ConnectionReport report={report} /> : null}
      {result ? <TestResult result={result} /> : null}
      <Instructions />
    </section>
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
  const hasProvider = Boolean(sso.provider);
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
      <Checkbox checked={form.jit} onChange={(jit) => setForm({ ...form, jit })}>
        {t.jit}
      </Checkbox>
      <Checkbox checked={form.enforce} onChange={(enforce) => setForm({ ...form, enforce })}>
        {t.enforce}
      </Checkbox>
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

function RedirectUris({ sso, onNotice }: { sso: ConsoleSso; onNotice: (notice: Notice) => void }) {
  async function copy(value: string) {
    try {
      await navigator.clipboard.writeText(value);
      onNotice({ text: t.copied });
    } catch {
      onNotice({ error: t.copyFailed });
    }
  }
  const uris = [
    { label: t.redirectSignIn, value: sso.redirectUris.signIn, id: 'sso-redirect-sign-in' },
    { label: t.redirectTest, value: sso.redirectUris.testSignIn, id: 'sso-redirect-test' },
  ];
  return (
    <div role="region" aria-labelledby="sso-redirect-title">
      <h3 id="sso-redirect-title">{t.redirectHeading}</h3>
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

function Instructions() {
  return (
    <div role="region" aria-labelledby="sso-instructions-title">
      <h3 id="sso-instructions-title">{t.instructionsHeading}</h3>
      {t.instructions.map((provider) => (
        <div key={provider.name}>
          <h4>{provider.name}</h4>
          <p>{provider.steps}</p>
        </div>
      ))}
    </div>
  );
}
