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
 */
export interface KeyMaterial {
  /** Private JWKS for oidc-provider: the signing key first, then retired keys still published. */
  jwks: { keys: JWK[] };
  /** Public JWKS for our own verification (introspection, userinfo). */
  publicJwks: { keys: JWK[] };
  cookieKeys: string[];
  /** The kids in order: changes whenever the signing or published keys change. */
  fingerprint: string;
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
  };
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
