import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { IdentityContext } from '../../context.ts';
import type { StoredKey, WebAuthnType } from './keys.ts';

/**
 * The WebAuthn ceremonies, all through `@simplewebauthn/server` (no CBOR or attestation parsing of
 * our own). The relying party id, its name and the allowed origins come from the configuration
 * (`config.webauthn`): every application's origin, under the parent domain they share.
 *
 * A challenge is made with its flow (32 random bytes, kept in the flow's state with the time it was
 * made), lives `IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN`, and is answered once: the first answer spends
 * it (`spendChallenge`, one insert on a primary key), whether or not the answer then verifies.
 */

interface Challenge {
  challenge: string;
  issued_at: string;
}

const challengeKey = (type: WebAuthnType) => `${type}_challenge`;

/** A new challenge for the flow's state (under `<type>_challenge`). */
export const newChallenge = (type: WebAuthnType, now: Date): Record<string, Challenge> => ({
  [challengeKey(type)]: { challenge: randomBytes(32).toString('base64url'), issued_at: now.toISOString() },
});

export function challengeOf(internal: Record<string, unknown>, type: WebAuthnType): Challenge | undefined {
  const c = internal[challengeKey(type)] as Partial<Challenge> | null | undefined;
  return c && typeof c.challenge === 'string' && typeof c.issued_at === 'string'
    ? { challenge: c.challenge, issued_at: c.issued_at }
    : undefined;
}

export type Spent = 'ok' | 'missing' | 'expired' | 'spent';

/**
 * Spends the flow's challenge: `ok` for exactly one caller, however many answer at once. A challenge
 * older than its lifespan is `expired` (and spent too).
 */
export async function spendChallenge(
  service: Pick<IdentityContext, 'db' | 'config'>,
  internal: Record<string, unknown>,
  type: WebAuthnType,
  now: Date,
): Promise<{ spent: Spent; challenge?: string }> {
  const c = challengeOf(internal, type);
  if (!c) return { spent: 'missing' };
  const inserted = await service.db
    .insertInto('identity_webauthn_spent_challenges')
    .values({ challenge: c.challenge, spent_at: now })
    .onConflict((oc) => oc.column('challenge').doNothing())
    .returning('challenge')
    .execute();
  if (inserted.length !== 1) return { spent: 'spent' };
  const age = now.getTime() - new Date(c.issued_at).getTime();
  if (!(age >= 0 && age <= service.config.webauthn.challengeLifespanMs)) return { spent: 'expired' };
  return { spent: 'ok', challenge: c.challenge };
}

const transports = (k: StoredKey) => k.transports as AuthenticatorTransport[];

/** `navigator.credentials.create()` options for a new key (JSON, as the browser library takes them). */
export function registrationOptions(
  service: Pick<IdentityContext, 'config'>,
  p: { type: WebAuthnType; challenge: string; userHandle: string; userName: string; existing: StoredKey[] },
) {
  const passkey = p.type === 'passkey';
  return generateRegistrationOptions({
    rpName: service.config.webauthn.rpName,
    rpID: service.config.webauthn.rpId,
    userName: p.userName,
    userID: Buffer.from(p.userHandle, 'base64url'),
    challenge: Buffer.from(p.challenge, 'base64url'),
    attestationType: 'none',
    excludeCredentials: p.existing.map((k) => ({ id: k.id, transports: k.transports })),
    authenticatorSelection: passkey
      ? { residentKey: 'required', userVerification: 'preferred' }
      : { residentKey: 'discouraged', userVerification: 'discouraged' },
    timeout: service.config.webauthn.challengeLifespanMs,
  });
}

/** `navigator.credentials.get()` options: any discoverable passkey, or the listed security keys. */
export function authenticationOptions(
  service: Pick<IdentityContext, 'config'>,
  p: { type: WebAuthnType; challenge: string; allow: StoredKey[] },
) {
  return generateAuthenticationOptions({
    rpID: service.config.webauthn.rpId,
    challenge: Buffer.from(p.challenge, 'base64url'),
    allowCredentials: p.allow.map((k) => ({ id: k.id, transports: transports(k) })),
    userVerification: p.type === 'passkey' ? 'preferred' : 'discouraged',
    timeout: service.config.webauthn.challengeLifespanMs,
  });
}

/**
 * The browser's answer, read from a form field holding its JSON: an object with string `id`,
 * `rawId`, `type: public-key` and a `response` object. Anything else is null (the caller answers
 * the Kratos "could not be read" message, never a 500).
 */
export function readAnswer<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(
  raw: unknown,
): T | null {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  const v = value as Partial<T> | null;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  if (typeof v.id !== 'string' || typeof v.rawId !== 'string' || v.type !== 'public-key') return null;
  if (!v.response || typeof v.response !== 'object') return null;
  if (v.clientExtensionResults === undefined)
    (v as { clientExtensionResults: object }).clientExtensionResults = {};
  return v as T;
}

const expected = (service: Pick<IdentityContext, 'config'>) => ({
  expectedOrigin: service.config.webauthn.origins,
  expectedRPID: service.config.webauthn.rpId,
});

/** Verifies a new key's attestation; the key to store, or null when it does not verify. */
export async function verifyNewKey(
  service: Pick<IdentityContext, 'config'>,
  p: { answer: RegistrationResponseJSON; challenge: string; name: string; now: Date },
): Promise<StoredKey | null> {
  try {
    const r = await verifyRegistrationResponse({
      response: p.answer,
      expectedChallenge: p.challenge,
      ...expected(service),
      requireUserVerification: false,
    });
    if (!r.verified) return null;
    const info = r.registrationInfo;
    return {
      id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: (p.answer.response.transports ?? []).filter((t) => typeof t === 'string').slice(0, 8),
      aaguid: info.aaguid,
      display_name: p.name,
      added_at: p.now.toISOString(),
      last_used_at: null,
      user_verified: info.userVerified,
    };
  } catch {
    return null;
  }
}

/** Verifies an assertion by `key`: its new counter and whether the user was verified, or null. */
export async function verifyAssertion(
  service: Pick<IdentityContext, 'config'>,
  p: { answer: AuthenticationResponseJSON; challenge: string; key: StoredKey; requireUv: boolean },
): Promise<{ counter: number; userVerified: boolean } | null> {
  try {
    const r = await verifyAuthenticationResponse({
      response: p.answer,
      expectedChallenge: p.challenge,
      ...expected(service),
      credential: {
        id: p.key.id,
        publicKey: Buffer.from(p.key.public_key, 'base64url'),
        counter: p.key.counter,
        transports: transports(p.key),
      },
      requireUserVerification: p.requireUv,
    });
    if (!r.verified) return null;
    return { counter: r.authenticationInfo.newCounter, userVerified: r.authenticationInfo.userVerified };
  } catch {
    return null;
  }
}
