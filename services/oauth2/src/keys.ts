import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import { sql, type Database } from '@acme/db';

/**
 * Signing keys (RS256) and cookie keys, generated on first start and kept in PostgreSQL.
 * Instances starting together converge on one row: insert … on conflict do nothing, then re-read.
 *
 * Rotation (`rotateSigningKey`, behind `POST /admin/keys/rotate` and `npm run admin -- keys:rotate`):
 * a new key goes first and signs from then on; the previous keys are marked retired at that
 * moment and stay in the JWKS until every JWT they signed has expired (retired at + the longest
 * JWT lifetime, access or ID token, + one minute of clock skew); after that they are left out
 * and dropped at the next rotation. Every instance re-reads the row periodically and swaps keys
 * when the published set changed.
 *
 * Revocation (`revokeSigningKey`, behind `POST /admin/keys/revoke` and
 * `npm run admin -- keys:revoke --kid <kid>`), for a key that may have leaked: the key leaves the
 * JWKS at once and its kid is recorded in `oauth2_revoked_keys`. Every instance checks that table
 * for each token it verifies (introspection, userinfo; the same read asks about the key it signs
 * with), so a token the key signed stops being accepted everywhere at once, and an instance that
 * was still signing with it re-reads its keys at its next verification (or its periodic re-read,
 * OAUTH2_KEY_RELOAD_SECONDS). The current signing key is refused: rotate a new one in first
 * (`keys:rotate`), then revoke the old one.
 */
export interface KeyMaterial {
  /** Private JWKS for oidc-provider: the signing key first, then retired keys still published. */
  jwks: { keys: JWK[] };
  /** Public JWKS for our own verification (introspection, userinfo). */
  publicJwks: { keys: JWK[] };
  cookieKeys: string[];
  /** The kids in order: changes whenever the signing or published keys change. */
  fingerprint: string;
  /** The kid of the key that signs. */
  signingKid: string;
}

/** kid → when it stopped signing (ISO). The current key has no entry. */
type KeyMeta = Record<string, { retiredAt: string }>;

const ROW_ID = 'default';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;
const SKEW_SECONDS = 60;

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

function toPublicJwk(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

interface KeyRow {
  jwks: { keys: JWK[] };
  cookie_keys: string[];
  key_meta: KeyMeta | null;
}

async function readRow(db: Database): Promise<KeyRow | undefined> {
  return (
    await sql<KeyRow>`
      select jwks, cookie_keys, key_meta from oauth2_keys where id = ${ROW_ID}`.execute(db.kysely)
  ).rows[0];
}

/** Whether a retired key may still have signed a live token at `now`. */
function stillPublished(meta: KeyMeta, kid: string | undefined, now: Date, retentionSeconds: number) {
  const retired = kid ? meta[kid] : undefined;
  if (!retired) return true;
  return Date.parse(retired.retiredAt) + (retentionSeconds + SKEW_SECONDS) * 1000 > now.getTime();
}

export async function loadKeyMaterial(
  db: Database,
  options: { now?: Date; retentionSeconds?: number } = {},
): Promise<KeyMaterial> {
  let row = await readRow(db);
  if (!row) {
    const jwks = { keys: [await generateSigningKey()] };
    const cookieKeys = [randomBytes(32).toString('base64url')];
    await sql`
      insert into oauth2_keys (id, jwks, cookie_keys)
      values (${ROW_ID}, ${JSON.stringify(jwks)}, ${JSON.stringify(cookieKeys)})
      on conflict (id) do nothing`.execute(db.kysely);
    row = await readRow(db);
  }
  if (!row) throw new Error('oauth2 key material could not be stored');
  const now = options.now ?? new Date();
  const meta = row.key_meta ?? {};
  const keys = row.jwks.keys.filter(
    (k, i) => i === 0 || stillPublished(meta, k.kid, now, options.retentionSeconds ?? 24 * 3600),
  );
  return {
    jwks: { keys },
    publicJwks: { keys: keys.map(toPublicJwk) },
    cookieKeys: row.cookie_keys,
    fingerprint: keys.map((k) => k.kid).join(','),
    signingKid: keys[0]?.kid ?? '',
  };
}

/** Which of `kids` were revoked (one primary-key read: every verification asks). */
export async function revokedKeys(db: Database, kids: (string | undefined)[]): Promise<Set<string>> {
  const wanted = [...new Set(kids.filter((k): k is string => typeof k === 'string' && k.length > 0))];
  if (wanted.length === 0) return new Set();
  const rows = (
    await sql<{ kid: string }>`
      select kid from oauth2_revoked_keys where kid in (${sql.join(wanted)})`.execute(db.kysely)
  ).rows;
  return new Set(rows.map((r) => r.kid));
}

/** Why a revocation was refused: `unknown` kid, or the `current` signing key. */
export class KeyRevocationRefused extends Error {
  readonly reason: 'unknown' | 'current';
  constructor(reason: 'unknown' | 'current') {
    super(
      reason === 'unknown'
        ? 'No published signing key has this kid.'
        : 'This is the current signing key: rotate a new key in first (keys:rotate), then revoke this one.',
    );
    this.reason = reason;
  }
}

/**
 * Withdraws a signing key at once: out of the JWKS and recorded as revoked, in one transaction
 * with the row locked (so it serialises with rotations). Refuses the current signing key.
 */
export async function revokeSigningKey(
  db: Database,
  options: { kid: string; now: Date },
): Promise<{ kid: string; remaining: string[] }> {
  return db.kysely.transaction().execute(async (trx) => {
    const row = (
      await sql<KeyRow>`
        select jwks, cookie_keys, key_meta from oauth2_keys where id = ${ROW_ID} for update`.execute(trx)
    ).rows[0];
    const index = row ? row.jwks.keys.findIndex((k) => k.kid === options.kid) : -1;
    if (!row || index === -1) throw new KeyRevocationRefused('unknown');
    if (index === 0) throw new KeyRevocationRefused('current');
    const keys = row.jwks.keys.filter((k) => k.kid !== options.kid);
    const meta: KeyMeta = { ...(row.key_meta ?? {}) };
    delete meta[options.kid];
    await sql`
      update oauth2_keys set jwks = ${JSON.stringify({ keys })}, key_meta = ${JSON.stringify(meta)}
      where id = ${ROW_ID}`.execute(trx);
    await sql`
      insert into oauth2_revoked_keys (kid, revoked_at) values (${options.kid}, ${options.now.toISOString()})
      on conflict (kid) do nothing`.execute(trx);
    return { kid: options.kid, remaining: keys.map((k) => k.kid!).filter(Boolean) };
  });
}

/**
 * Puts a new signing key first and retires the previous ones now; keys whose retention is over
 * are dropped. One transaction with the row locked, so concurrent rotations serialise.
 */
export async function rotateSigningKey(
  db: Database,
  options: { now: Date; retentionSeconds: number },
): Promise<{ kid: string; retired: string[] }> {
  const fresh = await generateSigningKey();
  await loadKeyMaterial(db, options); // the row exists from here on
  return db.kysely.transaction().execute(async (trx) => {
    const row = (
      await sql<KeyRow>`
        select jwks, cookie_keys, key_meta from oauth2_keys where id = ${ROW_ID} for update`.execute(trx)
    ).rows[0]!;
    const meta: KeyMeta = { ...(row.key_meta ?? {}) };
    const now = options.now.toISOString();
    for (const key of row.jwks.keys) {
      if (key.kid && !meta[key.kid]) meta[key.kid] = { retiredAt: now };
    }
    const kept = row.jwks.keys.filter((k) =>
      stillPublished(meta, k.kid, options.now, options.retentionSeconds),
    );
    for (const kid of Object.keys(meta)) {
      if (!kept.some((k) => k.kid === kid)) delete meta[kid];
    }
    const jwks = { keys: [fresh, ...kept] };
    await sql`
      update oauth2_keys set jwks = ${JSON.stringify(jwks)}, key_meta = ${JSON.stringify(meta)}
      where id = ${ROW_ID}`.execute(trx);
    return { kid: fresh.kid!, retired: kept.map((k) => k.kid!).filter(Boolean) };
  });
}
