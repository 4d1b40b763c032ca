import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { UiNode, UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { CommitRefused, type Outcome } from '../../flows/outcome.ts';
import type { FlowDraft, Strategy, StrategyContext } from '../../flows/strategy.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { messages } from '../../ui/messages.ts';
import {
  authenticationOptions,
  challengeOf,
  newChallenge,
  readAnswer,
  spendChallenge,
  verifyAssertion,
} from './ceremony.ts';
import { FIELDS, answerAgain, hiddenNode, scriptNode, triggerNode } from './fields.ts';
import { changeKeys, loadKeys, type StoredKey, type WebAuthnType } from './keys.ts';

/** Whose key an answer is, as the method finds it: the identity and its stored keys. */
export interface KeyOwner {
  identityId: string;
  userHandle: string;
  keys: StoredKey[];
}

/** What differs between signing in with a passkey and answering the second factor with a security key. */
export interface KeyLoginSpec {
  type: WebAuthnType;
  accepts(flow: FlowDraft): boolean;
  triggerLabel: () => UiText;
  /** The browser function of Kratos's script the trigger calls. */
  loginCall: string;
  /** The keys the browser may offer (security keys: the signed-in person's; passkeys: any, so none listed). */
  allowed(service: IdentityContext, session: ActiveSession | undefined): Promise<StoredKey[] | null>;
  /** The owner of the answering key (passkeys: by the answer's user handle; security keys: the session's). */
  owner(
    service: IdentityContext,
    answer: AuthenticationResponseJSON,
    session: ActiveSession | undefined,
  ): Promise<KeyOwner | undefined>;
  /** A refusal after a verified answer (an inactive account, an organisation enforcing SSO), or undefined. */
  refusal?(service: IdentityContext, identityId: string): Promise<UiText | undefined>;
  /** The session's assurance from this answer. */
  aal(userVerified: boolean): 'aal1' | 'aal2';
}

/**
 * A WebAuthn sign-in method: the flow's challenge is in the form (`<type>_challenge`, the options as
 * JSON, and the trigger button's `onclick`); the browser's answer comes back in `<type>_login`. The
 * challenge is spent by the first answer, so a replayed or parallel answer finds it spent; every
 * failure answers the same message with a new challenge, and never says whether an account exists.
 * A verified answer updates the key's counter and last use in the sign-in's transaction, with the
 * key's row locked: of several answers carrying the same counter (a cloned authenticator, or one
 * answer signed for several flows), one signs in and the others are refused.
 */
export function keyLogin(spec: KeyLoginSpec): Strategy {
  const { type } = spec;
  const f = FIELDS[type];

  async function nodes(
    flow: FlowDraft,
    service: IdentityContext,
    session: ActiveSession | undefined,
  ): Promise<UiNode[]> {
    const allow = await spec.allowed(service, session);
    const c = challengeOf(flow.internal, type);
    if (!allow || !c) return [];
    const options = JSON.stringify({
      publicKey: await authenticationOptions(service, { type, challenge: c.challenge, allow }),
    });
    return [
      hiddenNode(type, f.challenge, options),
      hiddenNode(type, f.login),
      triggerNode(type, f.loginTrigger, `window.${spec.loginCall}(${options})`, spec.triggerLabel()),
      scriptNode(service, type),
    ];
  }

  const again = (flow: FlowRow, ctx: StrategyContext, message: UiText) =>
    answerAgain(flow, { type, now: ctx.now, message }, (draft) => nodes(draft, ctx.service, ctx.session));

  async function submit(
    flow: FlowRow,
    input: Record<string, unknown>,
    ctx: StrategyContext,
  ): Promise<Outcome> {
    const { service, now, session } = ctx;
    const answer = readAnswer<AuthenticationResponseJSON>(input[f.login]);
    if (!answer) return again(flow, ctx, messages.webauthnUnreadable());
    const spent = await spendChallenge(service, flow.internal, type, now);
    if (spent.spent !== 'ok') return again(flow, ctx, messages.webauthnExpired());
    const owner = await spec.owner(service, answer, session);
    const key = owner?.keys.find((k) => k.id === answer.id);
    if (!owner || !key) return again(flow, ctx, messages.webauthnInvalid());
    const verified = await verifyAssertion(service, {
      answer,
      challenge: spent.challenge!,
      key,
      requireUv: false,
    });
    if (!verified) return again(flow, ctx, messages.webauthnInvalid());
    const refused = await spec.refusal?.(service, owner.identityId);
    if (refused) return again(flow, ctx, refused);
    return {
      type: 'success',
      identityId: owner.identityId,
      method: type,
      aal: spec.aal(verified.userVerified),
      async commit(trx) {
        await changeKeys(
          trx,
          { identityId: owner.identityId, type, userHandle: owner.userHandle, now },
          (keys) => {
            // Checked again with the row locked: parallel answers all verified against the counter
            // read before, so only the first to get here may advance it; the others are refused.
            const locked = keys.find((k) => k.id === key.id);
            if (!locked || !counterAdvances(locked.counter, verified.counter))
              throw new CommitRefused(() => again(flow, ctx, messages.webauthnInvalid()));
            return keys.map((k) =>
              k === locked ? { ...k, counter: verified.counter, last_used_at: now.toISOString() } : k,
            );
          },
        );
      },
    };
  }

  return {
    method: type,
    group: type,
    accepts: spec.accepts,
    prepare: (_flow, { service }) => newChallenge(type, service.clock.now()),
    nodes: (flow, { service, session }) => nodes(flow, service, session),
    submit,
  };
}

/**
 * Whether an answer's signature counter may follow the stored one (WebAuthn's rule): it must grow,
 * except that an authenticator which does not count answers 0 each time, and 0 after 0 is allowed.
 */
const counterAdvances = (stored: number, answered: number) =>
  (stored === 0 && answered === 0) || answered > stored;

/** The stored keys of `identityId` as their owner. */
export async function ownerOf(
  db: IdentityContext['db'],
  identityId: string,
  type: WebAuthnType,
): Promise<KeyOwner | undefined> {
  const stored = await loadKeys(db, identityId, type);
  return stored ? { identityId, userHandle: stored.user_handle, keys: stored.credentials } : undefined;
}
