import type { UiNode, UiText } from '@ory/client';
import type { SecurityNoticeKind } from '@acme/mail';
import { sessionErrors } from '../../errors/identity-error.ts';
import { settingsRefreshUrl } from '../../flows/kinds/settings.ts';
import { CommitRefused, type Outcome } from '../../flows/outcome.ts';
import type { FlowDraft, Strategy, StrategyContext } from '../../flows/strategy.ts';
import type { FlowRow } from '../../db/schema.ts';
import { recordSecurityEvent } from '../../db/security-events.ts';
import { queueSecurityNotice } from '../../identities/notices.ts';
import { identityEmail, type LoadedIdentity } from '../../identities/repo.ts';
import type { IdentityContext } from '../../context.ts';
import { computeAal } from '../../sessions/aal.ts';
import { isPrivileged } from '../../sessions/policy.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { messages } from '../../ui/messages.ts';
import { inputNode } from '../../ui/nodes.ts';
import { newChallenge, readAnswer, registrationOptions, spendChallenge, verifyNewKey } from './ceremony.ts';
import { FIELDS, answerAgain, hiddenNode, scriptNode, triggerNode } from './fields.ts';
import {
  MAX_KEYS,
  changeKeys,
  hexId,
  loadKeys,
  newUserHandle,
  readName,
  type StoredKey,
  type WebAuthnType,
} from './keys.ts';

/** What differs between passkeys and security keys in settings. */
export interface KeySettingsSpec {
  type: WebAuthnType;
  labels: {
    add: () => UiText;
    name: () => UiText;
    remove: (k: KeyLabel) => UiText;
    rename: (k: KeyLabel) => UiText;
  };
  notices: { added: SecurityNoticeKind; removed: SecurityNoticeKind };
  /**
   * A new key is a second factor: the session that added it gains an aal2 entry at once (as linking
   * TOTP does), so it still meets the identity's now higher level, and its token is replaced.
   */
  secondFactor?: boolean;
  /** The browser function of Kratos's script the add button calls. */
  registerCall: string;
  /** A refusal for this person (SSO rules), or undefined. */
  refusal(
    service: IdentityContext,
    identity: LoadedIdentity,
    session: ActiveSession,
  ): Promise<UiText | undefined>;
  /** State the flow needs to decide `offered` (merged into its `internal` when the form is drawn). */
  prepare?: Strategy['prepare'];
  /** Whether the nodes are offered on this flow at all. */
  offered?(flow: FlowDraft): boolean;
}

type KeyLabel = Pick<StoredKey, 'display_name' | 'added_at' | 'last_used_at'>;

const label = (k: StoredKey): KeyLabel => ({
  display_name: k.display_name,
  added_at: k.added_at,
  last_used_at: k.last_used_at,
});

const handleKey = (type: WebAuthnType) => `${type}_user_handle`;

/**
 * A WebAuthn method in settings: register a key (`<type>` register field with the browser's answer to
 * the flow's challenge, and an optional name), rename one, or remove one. Every change needs a
 * privileged session (else 403 `session_refresh_required`, as every settings change), is written with
 * the credential row locked, and mails the owner in the same transaction. The challenge is made with
 * the flow and spent by the first answer; a failed answer gets a new one in the redrawn form.
 */
export function keySettings(spec: KeySettingsSpec): Strategy {
  const { type } = spec;
  const f = FIELDS[type];

  async function nodes(flow: FlowDraft, service: IdentityContext, identity: LoadedIdentity) {
    if (spec.offered && !spec.offered(flow)) return [];
    const keys = (await loadKeys(service.db, identity.row.id, type))?.credentials ?? [];
    const out: UiNode[] = [];
    const c = flow.internal[`${type}_challenge`] as { challenge?: string } | undefined;
    const handle = flow.internal[handleKey(type)];
    if (c?.challenge && typeof handle === 'string' && keys.length < MAX_KEYS) {
      const options = await registrationOptions(service, {
        type,
        challenge: c.challenge,
        userHandle: handle,
        userName: identityEmail(identity, identity.row.id),
        existing: keys,
      });
      const createData = JSON.stringify({
        credentialOptions: { publicKey: options },
        displayName: identityEmail(identity),
      });
      out.push(
        hiddenNode(type, f.createData, createData),
        hiddenNode(type, f.register),
        inputNode({ group: type, name: f.displayName, type: 'text', label: spec.labels.name() }),
        triggerNode(type, f.registerTrigger, `window.${spec.registerCall}(${createData})`, spec.labels.add()),
      );
    }
    for (const k of keys) {
      out.push(
        inputNode({
          group: type,
          name: f.remove,
          type: 'submit',
          value: hexId(k.id),
          label: spec.labels.remove(label(k)),
        }),
        inputNode({
          group: type,
          name: f.rename,
          type: 'submit',
          value: hexId(k.id),
          label: spec.labels.rename(label(k)),
        }),
      );
    }
    out.push(scriptNode(service, type));
    return out;
  }

  /** The form again with a new challenge (the old one is spent), and `message`. */
  const again = (flow: FlowRow, ctx: StrategyContext, message: UiText, pointer = '#/') =>
    answerAgain(flow, { type, now: ctx.now, message, pointer }, (draft) =>
      nodes(draft, ctx.service, ctx.session!.identity),
    );

  /** Saved: the keys changed by `change` (the row is made with the flow's user handle when there is none). */
  const success = (
    flow: FlowRow,
    ctx: StrategyContext,
    notice: SecurityNoticeKind | null,
    change: Parameters<typeof changeKeys>[2],
  ): Outcome => {
    const identity = ctx.session!.identity;
    const to = identityEmail(identity);
    const handle = flow.internal[handleKey(type)];
    const userHandle = typeof handle === 'string' ? handle : newUserHandle();
    return {
      type: 'success',
      async commit(trx) {
        await changeKeys(trx, { identityId: identity.row.id, type, userHandle, now: ctx.now }, change);
        if (notice && to) await queueSecurityNotice(ctx.service, { to, kind: notice, at: ctx.now }, trx);
        const event = notice ? keyEvent(type, notice === spec.notices.added) : null;
        if (event)
          await recordSecurityEvent(trx, ctx.service, {
            ...event,
            subjectId: identity.row.id,
            client: ctx.client,
            at: ctx.now,
          });
      },
    };
  };

  async function register(
    flow: FlowRow,
    input: Record<string, unknown>,
    ctx: StrategyContext,
  ): Promise<Outcome> {
    const { service, now } = ctx;
    const identity = ctx.session!.identity;
    const answer = readAnswer<Parameters<typeof verifyNewKey>[1]['answer']>(input[f.register]);
    const rawName = input[f.displayName];
    const name = rawName === undefined || rawName === '' ? defaultName(type, now) : readName(rawName);
    if (!answer) return again(flow, ctx, messages.webauthnUnreadable());
    if (!name) return again(flow, ctx, messages.keyNameInvalid(), `#/${f.displayName}`);
    const spent = await spendChallenge(service, flow.internal, type, now);
    if (spent.spent !== 'ok') return again(flow, ctx, messages.webauthnExpired());
    const key = await verifyNewKey(service, { answer, challenge: spent.challenge!, name, now });
    if (!key) return again(flow, ctx, messages.webauthnInvalid());
    const existing = (await loadKeys(service.db, identity.row.id, type))?.credentials ?? [];
    if (existing.some((k) => k.id === key.id)) return again(flow, ctx, messages.keyExists());
    if (existing.length >= MAX_KEYS) return again(flow, ctx, messages.keyLimit(MAX_KEYS));
    // Checked again with the row locked: parallel registrations may all have read 19 keys above.
    // The one that finds the cap reached (or its key stored) rolls back, so no notice or event
    // announces a key that is not there, and gets the same refusal as above.
    // The key was made for the user handle this flow offered; it signs in only if that is the
    // identity's (a flow opened before the first key was stored elsewhere offered another one): if
    // not, nothing is stored and the form comes back offering the identity's handle.
    const offered = flow.internal[handleKey(type)];
    const saved = success(flow, ctx, spec.notices.added, (keys, userHandle) => {
      if (userHandle !== offered) {
        const renewed = { ...flow, internal: { ...flow.internal, [handleKey(type)]: userHandle } };
        throw new CommitRefused(() => again(renewed, ctx, messages.webauthnExpired()));
      }
      const refusal = keys.some((k) => k.id === key.id)
        ? messages.keyExists()
        : keys.length >= MAX_KEYS
          ? messages.keyLimit(MAX_KEYS)
          : undefined;
      if (refusal) throw new CommitRefused(() => again(flow, ctx, refusal));
      return [...keys, key];
    });
    if (!spec.secondFactor || saved.type !== 'success') return saved;
    const session = ctx.session!;
    const methods = [
      ...session.row.authentication_methods,
      { method: type, aal: 'aal2' as const, completed_at: now.toISOString() },
    ];
    const commit = saved.commit!;
    return {
      ...saved,
      aalRaised: true,
      async commit(trx) {
        await commit(trx);
        await trx
          .updateTable('identity_sessions')
          .set({ authentication_methods: JSON.stringify(methods), aal: computeAal(methods), updated_at: now })
          .where('id', '=', session.row.id)
          .execute();
      },
    };
  }

  return {
    method: type,
    group: type,
    // The user handle a new key is made for: the identity's, as stored with its keys (a passkey is
    // found by it at sign-in), or, before its first key, the one this flow already offered or a new one.
    async prepare(flow, { service, identity, session }) {
      const stored = identity ? (await loadKeys(service.db, identity.row.id, type))?.user_handle : undefined;
      const existing = flow.internal[handleKey(type)];
      return {
        ...(await spec.prepare?.(flow, { service, identity, session })),
        ...newChallenge(type, service.clock.now()),
        [handleKey(type)]: stored ?? (typeof existing === 'string' ? existing : newUserHandle()),
      };
    },
    async nodes(flow, { service, identity }) {
      return identity ? nodes(flow, service, identity) : [];
    },
    async submit(flow, input, ctx) {
      const { service, session } = ctx;
      if (!session || !isPrivileged(service, session))
        return { type: 'error', error: sessionErrors.refreshRequired(settingsRefreshUrl(service, flow)) };
      const identity = session.identity;
      const refused = await spec.refusal(service, identity, session);
      if (refused) return { type: 'flow_updated', messages: [{ pointer: '#/', message: refused }] };
      if (typeof input[f.remove] === 'string' || typeof input[f.rename] === 'string') {
        const removing = typeof input[f.remove] === 'string';
        const id = String(input[removing ? f.remove : f.rename]);
        const keys = (await loadKeys(service.db, identity.row.id, type))?.credentials ?? [];
        if (!keys.some((k) => hexId(k.id) === id))
          return { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.noWebAuthn() }] };
        if (removing)
          return success(flow, ctx, spec.notices.removed, (all) => all.filter((k) => hexId(k.id) !== id));
        const name = readName(input[f.displayName]);
        if (!name)
          return {
            type: 'flow_updated',
            messages: [{ pointer: `#/${f.displayName}`, message: messages.keyNameInvalid() }],
          };
        return success(flow, ctx, null, (all) =>
          all.map((k) => (hexId(k.id) === id ? { ...k, display_name: name } : k)),
        );
      }
      if (input[f.register] !== undefined) return register(flow, input, ctx);
      return { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.noSettingsStrategy() }] };
    },
  };
}

/** The name of a key added without one. */
const defaultName = (type: WebAuthnType, now: Date) =>
  `${type === 'passkey' ? 'Passkey' : 'Security key'} added ${now.toISOString().slice(0, 10)}`;

/** The security event of an added or removed key: a passkey, or a security key as a second factor. */
function keyEvent(type: WebAuthnType, added: boolean) {
  if (type === 'passkey') return { type: added ? ('passkey.added' as const) : ('passkey.removed' as const) };
  return {
    type: added ? ('two_factor.added' as const) : ('two_factor.removed' as const),
    details: { method: 'webauthn' },
  };
}
