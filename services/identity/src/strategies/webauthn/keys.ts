import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import { upsertCredential } from '../../identities/repo.ts';

/**
 * The two WebAuthn credential types, as Kratos names them: `passkey` signs in without a password
 * (a discoverable credential, found by its user handle), `webauthn` is a security key used as the
 * second factor. Both keep every key of an identity in one credential row.
 */
export type WebAuthnType = 'passkey' | 'webauthn';

/** Keys per identity and type at most (a bound on the credential row and on the options' lists). */
export const MAX_KEYS = 20;
/** A key's name: 1–64 characters. */
const MAX_NAME_LENGTH = 64;

/** One registered key. Ids and public keys are base64url; no secret is stored. */
export interface StoredKey {
  id: string;
  public_key: string;
  counter: number;
  transports: string[];
  aaguid: string;
  display_name: string;
  added_at: string;
  last_used_at: string | null;
  /** Whether the authenticator verified the user when the key was registered. */
  user_verified: boolean;
}

/** The credential's config: the identity's WebAuthn user handle (base64url) and its keys. */
export interface KeysConfig {
  user_handle: string;
  credentials: StoredKey[];
}

/** A new user handle: 32 random bytes, unrelated to the identity's id (it is shown to authenticators). */
export const newUserHandle = () => randomBytes(32).toString('base64url');

function readKeys(config: unknown): KeysConfig | undefined {
  const c = config as Partial<KeysConfig> | null | undefined;
  if (!c || typeof c.user_handle !== 'string' || !Array.isArray(c.credentials)) return undefined;
  return {
    user_handle: c.user_handle,
    credentials: c.credentials.filter(
      (k): k is StoredKey =>
        typeof k === 'object' && k !== null && typeof k.id === 'string' && typeof k.public_key === 'string',
    ),
  };
}

/** A key's id on the wire (Kratos: the raw id in hex). */
export const hexId = (id: string) => Buffer.from(id, 'base64url').toString('hex');

/** The stored keys of one type (none when there is no row). */
export async function loadKeys(
  db: Db,
  identityId: string,
  type: WebAuthnType,
): Promise<KeysConfig | undefined> {
  const row = await db
    .selectFrom('identity_credentials')
    .select('config')
    .where('identity_id', '=', identityId)
    .where('type', '=', type)
    .executeTakeFirst();
  return row ? readKeys(row.config) : undefined;
}

/**
 * Changes the keys of one identity and type inside `trx`, with the row locked, so two changes at once
 * do not lose one another. `change` gets the current keys and the identity's user handle (with no
 * row yet: none and `userHandle`) and answers the new list; an empty list removes the credential
 * (and its user handle identifier).
 */
export async function changeKeys(
  trx: Db,
  p: { identityId: string; type: WebAuthnType; userHandle: string; now: Date },
  change: (keys: StoredKey[], userHandle: string) => StoredKey[],
): Promise<void> {
  const locked = await sql<{ config: unknown }>`select config from identity_credentials
    where identity_id = ${p.identityId} and type = ${p.type} for update`.execute(trx);
  const current = readKeys(locked.rows[0]?.config) ?? { user_handle: p.userHandle, credentials: [] };
  const next = change(current.credentials, current.user_handle);
  if (next.length === 0) {
    await trx
      .deleteFrom('identity_credentials')
      .where('identity_id', '=', p.identityId)
      .where('type', '=', p.type)
      .execute();
    await trx
      .deleteFrom('identity_credential_identifiers')
      .where('identity_id', '=', p.identityId)
      .where('type', '=', p.type)
      .execute();
    return;
  }
  const config: KeysConfig = { user_handle: current.user_handle, credentials: next };
  // A passkey is found by its user handle at sign-in (an identifier, unique per type); a security key
  // is only asked for once the person is known, so it has none.
  const identifiers = p.type === 'passkey' ? [current.user_handle] : [];
  await upsertCredential(trx, p.identityId, p.type, { ...config }, identifiers, p.now);
}

/** A key's name as typed: trimmed, 1–64 characters without control characters; null otherwise. */
export function readName(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const name = input.trim();
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name)) return null;
  return name;
}
