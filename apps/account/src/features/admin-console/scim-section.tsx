import { useEffect, useRef, useState } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Me, type ScimToken } from './console-client.ts';
import { consoleCopy } from './copy.ts';
import { decideScimTokenName } from './decide-scim.ts';
import { ScimMappings } from './scim-mappings.tsx';
import { copyText, NoticeLine, scimFailureMessage, type Notice } from './scim-notice.tsx';
import { formatDate, useLoad } from './use-load.ts';

const t = consoleCopy.scim;

/**
 * Provisioning (SCIM), permission ManageOrganisationUsers: the base URL the directory calls, the
 * organisation's tokens (created once, shown once; revocable) and the group mapping editor.
 */
export function ScimSection({ me }: { me: Me }) {
  const [settings, reloadSettings] = useLoad('scim-settings', () =>
    consoleApi.scimSettings(me.organisationId),
  );
  const [notice, setNotice] = useState<Notice>(null);
  return (
    <section aria-labelledby="scim-title">
      <h2 id="scim-title">{consoleCopy.sections.scim}</h2>
      <p>{t.intro}</p>
      {settings.state === 'loading' ? <p role="status">{consoleCopy.loading}</p> : null}
      {settings.state === 'error' ? <p role="alert">{consoleCopy.loadFailed(settings.message)}</p> : null}
      {settings.state === 'ready' ? (
        <>
          <p data-testid="scim-state">{settings.value.enabled ? t.on : t.off}</p>
          <dl className="console-facts">
            <dt>{t.baseUrl}</dt>
            <dd>
              <code data-testid="scim-base-url">{settings.value.baseUrl}</code>{' '}
              <button
                type="button"
                className="button secondary console-inline-button"
                onClick={() => void copyText(settings.value.baseUrl, t.copied).then(setNotice)}
              >
                {t.copyBaseUrl}
              </button>
            </dd>
          </dl>
          <NoticeLine notice={notice} />
        </>
      ) : null}
      {/* A token created or revoked turns provisioning on or off: the settings load again. */}
      <ScimTokens me={me} onChange={reloadSettings} />
      {settings.state === 'ready' ? (
        <ScimMappings me={me} settings={settings.value} onSaved={reloadSettings} />
      ) : null}
    </section>
  );
}

function ScimTokens({ me, onChange }: { me: Me; onChange: () => void }) {
  const [list, reload] = useLoad('scim-tokens', () => consoleApi.scimTokens(me.organisationId));
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string[]>([]);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [confirming, setConfirming] = useState<ScimToken | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const createdRef = useRef<HTMLHeadingElement>(null);
  const revokeButtons = useRef(new Map<string, HTMLButtonElement>());
  // The token is what the admin came for: the focus moves to it once it shows.
  useEffect(() => {
    if (created) createdRef.current?.focus();
  }, [created]);

  async function create() {
    const decision = decideScimTokenName(name);
    if (!decision.ok) {
      setNameError([decision.error]);
      nameRef.current?.focus();
      return;
    }
    setNameError([]);
    setBusy(true);
    try {
      const answer = await consoleApi.createScimToken(me.organisationId, { name: decision.name });
      setCreated({ name: answer.name, token: answer.token });
      setName('');
      setNotice({ text: t.tokens.created(answer.name) });
      reload();
      onChange();
    } catch (error) {
      setNotice({ error: scimFailureMessage(error) });
    } finally {
      setBusy(false);
    }
  }

  /** Cancelled: the dialog closes and the focus goes back to the Revoke button that opened it. */
  function cancel(token: ScimToken) {
    setConfirming(null);
    revokeButtons.current.get(token.id)?.focus();
  }

  async function revoke(token: ScimToken) {
    setBusy(true);
    try {
      await consoleApi.revokeScimToken(me.organisationId, token.id);
      setNotice({ text: t.tokens.revoked(token.name) });
      reload();
      onChange();
    } catch (error) {
      setNotice({ error: scimFailureMessage(error) });
    } finally {
      setBusy(false);
      setConfirming(null);
      // The row and its button go: the focus moves to the list's heading, not to the page's start.
      headingRef.current?.focus();
    }
  }

  return (
    <div role="region" aria-labelledby="scim-tokens-title">
      <h3 id="scim-tokens-title" ref={headingRef} tabIndex={-1}>
        {t.tokens.heading}
      </h3>
      <p>{t.tokens.intro}</p>
      <form
        className="console-form"
        aria-labelledby="scim-token-create-title"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <h4 id="scim-token-create-title">{t.tokens.createHeading}</h4>
        <TextField
          ref={nameRef}
          label={t.tokens.name}
          required
          maxLength={200}
          value={name}
          errors={nameError}
          onChange={(e) => setName(e.target.value)}
        />
        <p className="hint">{t.tokens.nameHint}</p>
        <button type="submit" className="button" disabled={busy}>
          {t.tokens.create}
        </button>
      </form>
      <NoticeLine notice={notice} />
      {created ? (
        <div className="notice" role="region" aria-labelledby="scim-token-once-title">
          <h4 id="scim-token-once-title" ref={createdRef} tabIndex={-1}>
            {t.tokens.tokenHeading}
          </h4>
          <p>{t.tokens.tokenOnce}</p>
          <p>
            <code data-testid="scim-token">{created.token}</code>
          </p>
          <div className="row">
            <button
              type="button"
              className="button"
              onClick={() => void copyText(created.token, t.tokens.copiedToken).then(setNotice)}
            >
              {t.tokens.copy}
            </button>
            <button
              type="button"
              className="button secondary"
              onClick={() => {
                setCreated(null);
                nameRef.current?.focus();
              }}
            >
              {t.tokens.done}
            </button>
          </div>
        </div>
      ) : null}
      {confirming ? (
        <div
          role="alertdialog"
          aria-modal="false"
          aria-labelledby="scim-revoke-text"
          className="notice"
          onKeyDown={(event) => {
            if (event.key === 'Escape') cancel(confirming);
          }}
        >
          <p id="scim-revoke-text">{t.tokens.confirmRevoke(confirming.name)}</p>
          <div className="row">
            <button type="button" className="button" disabled={busy} onClick={() => void revoke(confirming)}>
              {t.tokens.confirm}
            </button>
            <button type="button" className="button secondary" autoFocus onClick={() => cancel(confirming)}>
              {t.tokens.cancel}
            </button>
          </div>
        </div>
      ) : null}
      {list.state === 'loading' ? <p role="status">{consoleCopy.loading}</p> : null}
      {list.state === 'error' ? <p role="alert">{consoleCopy.loadFailed(list.message)}</p> : null}
      {list.state === 'ready' && list.value.tokens.length === 0 ? <p>{t.tokens.empty}</p> : null}
      {list.state === 'ready' && list.value.tokens.length > 0 ? (
        <table className="console-table" aria-labelledby="scim-tokens-title">
          <thead>
            <tr>
              <th scope="col">{t.tokens.name}</th>
              <th scope="col">{t.tokens.createdAt}</th>
              <th scope="col">{t.tokens.lastUsed}</th>
              <th scope="col">{t.tokens.createdBy}</th>
              <th scope="col">
                <span className="visually-hidden">{t.tokens.revoke}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.value.tokens.map((token) => (
              <tr key={token.id}>
                <td>{token.name}</td>
                <td>{formatDate(token.createdAt)}</td>
                <td>{token.lastUsedAt ? formatDate(token.lastUsedAt) : t.tokens.never}</td>
                <td>{token.createdBy ?? t.tokens.unknownCreator}</td>
                <td>
                  <button
                    type="button"
                    className="button secondary"
                    disabled={busy}
                    aria-label={t.tokens.revokeNamed(token.name)}
                    ref={(el) => {
                      if (el) revokeButtons.current.set(token.id, el);
                      else revokeButtons.current.delete(token.id);
                    }}
                    onClick={() => setConfirming(token)}
                  >
                    {t.tokens.revoke}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
