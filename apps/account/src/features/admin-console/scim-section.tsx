import { Address } from '../../shared/ui/address.tsx';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { TextField } from '../../shared/ui/text-field.tsx';
import { consoleApi, type Me, type ScimToken } from './console-client.ts';
import { consoleCopy } from './copy.ts';
import { decideScimTokenName } from './decide-scim.ts';
import { ScimMappings } from './scim-mappings.tsx';
import { scimFailureMessage } from './scim-notice.tsx';
import { ConfirmRevoke, copyText, NoticeLine, ShownOnce, TokenList, type Notice } from './token-list.tsx';
import { formatDate, useLoad, type Loaded } from './use-load.ts';
import { Loadable } from './loadable.tsx';

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
      <Loadable loaded={settings}>
        {(value) => (
          <>
            <p data-testid="scim-state">{value.enabled ? t.on : t.off}</p>
            <dl className="console-facts">
              <dt>{t.baseUrl}</dt>
              <dd>
                <code data-testid="scim-base-url">{value.baseUrl}</code>{' '}
                <button
                  type="button"
                  className="button secondary console-inline-button"
                  onClick={() => void copyText(value.baseUrl, t.copied, t.copyFailed).then(setNotice)}
                >
                  {t.copyBaseUrl}
                </button>
              </dd>
            </dl>
            <NoticeLine notice={notice} />
          </>
        )}
      </Loadable>
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
    await run(async () => {
      const answer = await consoleApi.createScimToken(me.organisationId, { name: decision.name });
      setCreated({ name: answer.name, token: answer.token });
      setName('');
      setNotice({ text: t.tokens.created(answer.name) });
    });
  }

  /** Runs a change; then the list and the settings load again, or the refusal shows in words. */
  async function run(action: () => Promise<void>, after?: () => void) {
    setBusy(true);
    try {
      await action();
      reload();
      onChange();
    } catch (error) {
      setNotice({ error: scimFailureMessage(error) });
    } finally {
      setBusy(false);
      after?.();
    }
  }

  /** Cancelled: the dialog closes and the focus goes back to the Revoke button that opened it. */
  function cancel(token: ScimToken) {
    setConfirming(null);
    revokeButtons.current.get(token.id)?.focus();
  }

  const revoke = (token: ScimToken) =>
    run(
      async () => {
        await consoleApi.revokeScimToken(me.organisationId, token.id);
        setNotice({ text: t.tokens.revoked(token.name) });
      },
      () => {
        setConfirming(null);
        // The row and its button go: the focus moves to the list's heading, not to the page's start.
        headingRef.current?.focus();
      },
    );

  return (
    <div role="region" aria-labelledby="scim-tokens-title">
      <h3 id="scim-tokens-title" ref={headingRef} tabIndex={-1}>
        {t.tokens.heading}
      </h3>
      <p>{t.tokens.intro}</p>
      <ScimTokenForm
        name={name}
        errors={nameError}
        nameRef={nameRef}
        busy={busy}
        onName={setName}
        onSubmit={() => void create()}
      />
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
      <ScimTokenList list={list} busy={busy} onRevoke={setConfirming} revokeButtons={revokeButtons} />
    </div>
  );
}

/** The directory's tokens, each with Revoke (its button kept in `revokeButtons`, to focus after a cancel). */
function ScimTokenList({
  list,
  busy,
  onRevoke,
  revokeButtons,
}: {
  list: Loaded<{ tokens: ScimToken[] }>;
  busy: boolean;
  onRevoke(token: ScimToken): void;
  revokeButtons: RefObject<Map<string, HTMLButtonElement>>;
}) {
  return (
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
            <Address key="by">{token.createdBy}</Address>,
          ],
          revoke: {
            label: t.tokens.revokeNamed(token.name),
            onClick: () => onRevoke(token),
            ref: (el) => {
              if (el) revokeButtons.current.set(token.id, el);
              else revokeButtons.current.delete(token.id);
            },
          },
        }))
      }
    />
  );
}

/** A new token's name (what the admin will know it by), and Create. */
function ScimTokenForm(props: {
  name: string;
  errors: string[];
  nameRef: RefObject<HTMLInputElement | null>;
  busy: boolean;
  onName(name: string): void;
  onSubmit(): void;
}) {
  const { name, errors, nameRef, busy, onName, onSubmit } = props;
  return (
    <form
      className="console-form"
      aria-labelledby="scim-token-create-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <h4 id="scim-token-create-title">{t.tokens.createHeading}</h4>
      <TextField
        ref={nameRef}
        label={t.tokens.name}
        required
        maxLength={200}
        value={name}
        errors={errors}
        onChange={(e) => onName(e.target.value)}
      />
      <p className="hint">{t.tokens.nameHint}</p>
      <button type="submit" className="button" disabled={busy}>
        {t.tokens.create}
      </button>
    </form>
  );
}
