import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import { sql, type Database } from '@acme/db';

/**
 * Signing keys and cookie keys, generated on first start and kept in PostgreSQL.
 * Instances starting together converge on one row: insert … on conflict do nothing, then re-read.
 * The key set holds one current key per signing algorithm in use (ADR 0017): ES256 for JWT access
 * tokens, RS256 for ID tokens (as clients register them). A set without a current key of an
 * algorithm in use (a set from before, or a change of OAUTH2_ACCESS_TOKEN_ALG) gets one added at
 * start-up, under the row lock, so instances starting together add it once.
 *
 * Rotation (`rotateSigningKey`, behind `POST /admin/keys/rotate` and `npm run admin -- keys:rotate`):
 * a new key per algorithm goes first and signs from then on; the previous keys are marked retired at that
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
 * OAUTH2_KEY_RELOAD_SECONDS). A current signing key (of any algorithm) is refused: rotate new
 * ones in first (`keys:rotate`), then revoke the old one.
 */
export type SigningAlg = 'ES256' | 'RS256';

/** The algorithms the key set serves: the access tokens' first, then RS256 for ID tokens. */
export function signingAlgs(accessTokenAlg: SigningAlg): SigningAlg[] {
  return [...new Set<SigningAlg>([accessTokenAlg, 'RS256'])];
}

export interface KeyMaterial {
  /** Private JWKS for oidc-provider: the signing key first, then retired keys still published. */
  jwks: { keys: JWK[] };
  /** Public JWKS for our own verification (introspection, userinfo). */
  publicJwks: { keys: JWK[] };
  cookieKeys: string[];
  /** The kids in order: changes whenever the signing or published keys change. */
  fingerprint: string;
  /** The kids of the keys that sign (one per algorithm). */
  signingKids: string[];
}

/** kid → when it stopped signing (ISO). The current key has no entry. */
type KeyMeta = Record<string, { retiredAt: string }>;

const ROW_ID = 'default';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;
const SKEW_SECONDS = 60;
const generate = promisify(generateKeyPair);

async function generateSigningKey(alg: SigningAlg): Promise<JWK> {
  const { privateKey } =
    alg === 'RS256'
      ? await generate('rsa', { modulusLength: 2048 })
      : await generate('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: randomUUID(), alg, use: 'sig' };
}

/** Keys without a retirement date sign (the newest of each algorithm comes first in the set). */
const isCurrent = (meta: KeyMeta, key: JWK) => !key.kid || !meta[key.kid];
/** Algorithms among `algs` without a current key in `row`. */
const missingAlgs = (row: KeyRow | undefined, algs: SigningAlg[]) =>
  algs.filter(
    (alg) => !row?.jwks.keys.some((k) => (k.alg ?? 'RS256') === alg && isCurrent(row.key_meta ?? {}, k)),
  );

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

/** Adds a current key for each of `algs` that has none (generated outside the lock, added under it). */
async function addMissingKeys(db: Database, algs: SigningAlg[]): Promise<void> {
  const fresh = await Promise.all(algs.map(generateSigningKey));
  await db.kysely.transaction().execute(async (trx) => {
    const row = (
      await sql<KeyRow>`
        select jwks, cookie_keys, key_meta from oauth2_keys where id = ${ROW_ID} for update`.execute(trx)
    ).rows[0];
    if (!row) {
      const cookieKeys = [randomBytes(32).toString('base64url')];
      await sql`
        insert into oauth2_keys (id, jwks, cookie_keys)
        values (${ROW_ID}, ${JSON.stringify({ keys: fresh })}, ${JSON.stringify(cookieKeys)})
        on conflict (id) do nothing`.execute(trx);
      return;
    }
    // Another instance may have added them since the first read.
    const still = new Set(missingAlgs(row, algs));
    const added = fresh.filter((k) => still.has(k.alg as SigningAlg));
    if (added.length === 0) return;
    await sql`
      update oauth2_keys set jwks = ${JSON.stringify({ keys: [...added, ...row.jwks.keys] })}
      where id = ${ROW_ID}`.execute(trx);
  });
}

export async function loadKeyMaterial(
  db: Database,
  options: { now?: Date; retentionSeconds?: number; algs?: SigningAlg[] } = {},
): Promise<KeyMaterial> {
  const algs = options.algs ?? signingAlgs('ES256');
  let row = await readRow(db);
  const missing = missingAlgs(row, algs);
  if (missing.length > 0) {
    await addMissingKeys(db, missing);
    row = await readRow(db);
  }
  if (!row) throw new Error('oauth2 key material could not be stored');
  const now = options.now ?? new Date();
  const meta = row.key_meta ?? {};
  const keys = row.jwks.keys.filter((k) =>
    stillPublished(meta, k.kid, now, options.retentionSeconds ?? 24 * 3600),
  );
  return {
    jwks: { keys },
    publicJwks: { keys: keys.map(toPublicJwk) },
    cookieKeys: row.cookie_keys,
    fingerprint: keys.map((k) => k.kid).join(','),
    signingKids: keys.filter((k) => isCurrent(meta, k)).map((k) => k.kid ?? ''),
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
    const key = row?.jwks.keys.find((k) => k.kid === options.kid);
    if (!row || !key) throw new KeyRevocationRefused('unknown');
    if (isCurrent(row.key_meta ?? {}, key)) throw new KeyRevocationRefused('current');
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
 * Puts a new signing key per algorithm first and retires the previous ones now; keys whose
 * retention is over are dropped. One transaction with the row locked, so concurrent rotations
 * serialise. `kid` is the new key of the first algorithm (the access tokens'), `kids` every new one.
 */
export async function rotateSigningKey(
  db: Database,
  options: { now: Date; retentionSeconds: number; algs: SigningAlg[] },
): Promise<{ kid: string; kids: string[]; retired: string[] }> {
  const fresh = await Promise.all(options.algs.map(generateSigningKey));
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
    const jwks = { keys: [...fresh, ...kept] };
    await sql`
      update oauth2_keys set jwks = ${JSON.stringify(jwks)}, key_meta = ${JSON.stringify(meta)}
      where id = ${ROW_ID}`.execute(trx);
    return {
      kid: fresh[0]!.kid!,
      kids: fresh.map((k) => k.kid!),
      retired: kept.map((k) => k.kid!).filter(Boolean),
    };
  });
}
