import { useEffect, useRef, useState } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Me, type ScimToken } from './console-client.ts';
import { consoleCopy } from './copy.ts';
import { decideScimTokenName } from './decide-scim.ts';
import { ScimMappings } from './scim-mappings.tsx';
import { scimFailureMessage } from './scim-notice.tsx';
import { ConfirmRevoke, copyText, NoticeLine, ShownOnce, TokenList, type Notice } from './token-list.tsx';
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
                onClick={() => void copyText(settings.value.baseUrl, t.copied, t.copyFailed).then(setNotice)}
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
        <ShownOnce
          titleId="scim-token-once-title"
          level={4}
          heading={t.tokens.tokenHeading}
          headingRef={createdRef}
          warning={t.tokens.tokenOnce}
          copyLabel={t.tokens.copy}
          onCopy={() => void copyText(created.token, t.tokens.copiedToken, t.copyFailed).then(setNotice)}
          doneLabel={t.tokens.done}
          onDone={() => {
            setCreated(null);
            nameRef.current?.focus();
          }}
        >
          <p>
            <code data-testid="scim-token">{created.token}</code>
          </p>
        </ShownOnce>
      ) : null}
      {confirming ? (
        <ConfirmRevoke
          textId="scim-revoke-text"
          text={t.tokens.confirmRevoke(confirming.name)}
          confirmLabel={t.tokens.confirm}
          cancelLabel={t.tokens.cancel}
          busy={busy}
          onConfirm={() => void revoke(confirming)}
          onCancel={() => cancel(confirming)}
          escapable
        />
      ) : null}
      <TokenList
        list={list}
        empty={t.tokens.empty}
        labelledBy="scim-tokens-title"
        columns={[t.tokens.name, t.tokens.createdAt, t.tokens.lastUsed, t.tokens.createdBy]}
        revokeLabel={t.tokens.revoke}
        busy={busy}
        rows={({ tokens }) =>
          tokens.map((token) => ({
            id: token.id,
            cells: [
              token.name,
              formatDate(token.createdAt),
              token.lastUsedAt ? formatDate(token.lastUsedAt) : t.tokens.never,
              token.createdBy,
            ],
            revoke: {
              label: t.tokens.revokeNamed(token.name),
              onClick: () => setConfirming(token),
              ref: (el) => {
                if (el) revokeButtons.current.set(token.id, el);
                else revokeButtons.current.delete(token.id);
              },
            },
          }))
        }
      />
    </div>
  );
}
