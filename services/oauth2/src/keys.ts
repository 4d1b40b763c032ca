import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import type { Transaction } from 'kysely';
import { sql, type Database } from '@acme/db';
import type { SecretBox } from '@acme/service-kit/secret-box';

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
 *
 * Scheduled rotation (`rotateSigningKeyIfDue`, OAUTH2_KEY_ROTATE_EVERY): each instance asks at its
 * periodic re-read; the row's `signing_since` is read again under the row lock, so of many
 * instances asking at once exactly one rotates per period.
 *
 * At rest (`box`, from OAUTH2_KEYS_SECRET): the private JWKS and the cookie keys are stored sealed,
 * `{"sealed": "v2.<key id>…"}`, under the first key of the list; a row in clear (from before the
 * setting) or sealed under a later entry of the list is sealed again under the first key by the
 * first instance that reads it, under the row lock. Without a box (development) the row is clear.
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
  signing_since: Date | string | null;
  /** Whether the stored form is what `box` would write now (sealed under its first key, or clear without a box). */
  storedAsWanted: boolean;
}

/** The row as stored: clear JSON, or `{sealed}` (see the header). */
interface StoredRow {
  jwks: unknown;
  cookie_keys: unknown;
  key_meta: KeyMeta | null;
  signing_since: Date | string | null;
}

/** What the private keys and cookie keys are sealed with: the row and column are the context. */
export interface KeyStoreOptions {
  box?: SecretBox | undefined;
}

const JWKS_CONTEXT = 'oauth2_keys.default.jwks';
const COOKIE_CONTEXT = 'oauth2_keys.default.cookie_keys';
const sealedOf = (v: unknown) =>
  typeof v === 'object' && v !== null && typeof (v as { sealed?: unknown }).sealed === 'string'
    ? (v as { sealed: string }).sealed
    : undefined;

function openColumn<T>(value: unknown, context: string, box: SecretBox | undefined): T {
  const sealed = sealedOf(value);
  if (sealed === undefined) return value as T;
  if (!box)
    throw new Error('the signing keys are sealed: set OAUTH2_KEYS_SECRET to the key that sealed them');
  return JSON.parse(box.open(sealed, context)) as T;
}

function decode(row: StoredRow | undefined, box: SecretBox | undefined): KeyRow | undefined {
  if (!row) return undefined;
  const sealed = [sealedOf(row.jwks), sealedOf(row.cookie_keys)];
  return {
    jwks: openColumn(row.jwks, JWKS_CONTEXT, box),
    cookie_keys: openColumn(row.cookie_keys, COOKIE_CONTEXT, box),
    key_meta: row.key_meta,
    signing_since: row.signing_since,
    storedAsWanted: box
      ? sealed.every((v) => v !== undefined && box.isCurrent(v))
      : sealed.every((v) => v === undefined),
  };
}

/** The stored form of a column's value: sealed with the box's first key, or clear without one. */
function encode(value: unknown, context: string, box: SecretBox | undefined): string {
  const text = JSON.stringify(value);
  return box ? JSON.stringify({ sealed: box.seal(text, context) }) : text;
}

const ROW_COLUMNS = sql.raw('jwks, cookie_keys, key_meta, signing_since');

async function readRow(db: Database, box: SecretBox | undefined): Promise<KeyRow | undefined> {
  return decode(
    (
      await sql<StoredRow>`
      select ${ROW_COLUMNS} from oauth2_keys where id = ${ROW_ID}`.execute(db.kysely)
    ).rows[0],
    box,
  );
}

async function lockRow(trx: Transaction<unknown>, box: SecretBox | undefined): Promise<KeyRow | undefined> {
  return decode(
    (
      await sql<StoredRow>`
        select ${ROW_COLUMNS} from oauth2_keys where id = ${ROW_ID} for update`.execute(trx)
    ).rows[0],
    box,
  );
}

/** Whether a retired key may still have signed a live token at `now`. */
function stillPublished(meta: KeyMeta, kid: string | undefined, now: Date, retentionSeconds: number) {
  const retired = kid ? meta[kid] : undefined;
  if (!retired) return true;
  return Date.parse(retired.retiredAt) + (retentionSeconds + SKEW_SECONDS) * 1000 > now.getTime();
}

/** Writes the key set (and the cookie keys) in the stored form `box` asks for. */
async function writeRow(
  trx: Transaction<unknown>,
  box: SecretBox | undefined,
  row: { jwks: { keys: JWK[] }; cookie_keys: string[]; key_meta: KeyMeta | null },
  signingSince?: Date,
): Promise<void> {
  await sql`
    update oauth2_keys set
      jwks = ${encode(row.jwks, JWKS_CONTEXT, box)},
      cookie_keys = ${encode(row.cookie_keys, COOKIE_CONTEXT, box)},
      key_meta = ${row.key_meta === null ? null : JSON.stringify(row.key_meta)}
      ${signingSince ? sql`, signing_since = ${signingSince.toISOString()}` : sql``}
    where id = ${ROW_ID}`.execute(trx);
}

/**
 * Adds a current key for each of `algs` that has none (generated outside the lock, added under it),
 * and stores the row as `box` asks (sealed under its first key) if it is not already.
 */
async function settleRow(db: Database, algs: SigningAlg[], box: SecretBox | undefined, now: Date) {
  const fresh = await Promise.all(algs.map(generateSigningKey));
  await db.kysely.transaction().execute(async (trx) => {
    const row = await lockRow(trx, box);
    if (!row) {
      const cookieKeys = [randomBytes(32).toString('base64url')];
      await sql`
        insert into oauth2_keys (id, jwks, cookie_keys, signing_since)
        values (${ROW_ID}, ${encode({ keys: fresh }, JWKS_CONTEXT, box)},
          ${encode(cookieKeys, COOKIE_CONTEXT, box)}, ${now.toISOString()})
        on conflict (id) do nothing`.execute(trx);
      return;
    }
    // Another instance may have added them, or sealed the row, since the first read.
    const still = new Set(missingAlgs(row, algs));
    const added = fresh.filter((k) => still.has(k.alg as SigningAlg));
    if (added.length === 0 && row.storedAsWanted && row.signing_since !== null) return;
    await writeRow(
      trx,
      box,
      { ...row, jwks: { keys: [...added, ...row.jwks.keys] } },
      added.length > 0 || row.signing_since === null ? now : undefined,
    );
  });
}

export async function loadKeyMaterial(
  db: Database,
  options: { now?: Date; retentionSeconds?: number; algs?: SigningAlg[] } & KeyStoreOptions = {},
): Promise<KeyMaterial> {
  const algs = options.algs ?? signingAlgs('ES256');
  let row = await readRow(db, options.box);
  const missing = missingAlgs(row, algs);
  if (missing.length > 0 || !row?.storedAsWanted || row.signing_since === null) {
    await settleRow(db, missing, options.box, options.now ?? new Date());
    row = await readRow(db, options.box);
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
  options: { kid: string; now: Date } & KeyStoreOptions,
): Promise<{ kid: string; remaining: string[] }> {
  return db.kysely.transaction().execute(async (trx) => {
    const row = await lockRow(trx, options.box);
    const key = row?.jwks.keys.find((k) => k.kid === options.kid);
    if (!row || !key) throw new KeyRevocationRefused('unknown');
    if (isCurrent(row.key_meta ?? {}, key)) throw new KeyRevocationRefused('current');
    const keys = row.jwks.keys.filter((k) => k.kid !== options.kid);
    const meta: KeyMeta = { ...(row.key_meta ?? {}) };
    delete meta[options.kid];
    await writeRow(trx, options.box, { ...row, jwks: { keys }, key_meta: meta });
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
  options: { now: Date; retentionSeconds: number; algs: SigningAlg[] } & KeyStoreOptions,
): Promise<{ kid: string; kids: string[]; retired: string[] }> {
  return (await rotate(db, options))!;
}

/**
 * OAUTH2_KEY_ROTATE_EVERY: rotates (as rotateSigningKey) when the current keys have signed for
 * `everySeconds` or more, else does nothing. Every instance may ask at any time: `signing_since` is
 * read again under the row lock, so however many ask at once, one rotation happens per period.
 */
export async function rotateSigningKeyIfDue(
  db: Database,
  options: {
    now: Date;
    retentionSeconds: number;
    algs: SigningAlg[];
    everySeconds: number;
  } & KeyStoreOptions,
): Promise<{ kid: string; kids: string[]; retired: string[] } | undefined> {
  const due = (row: KeyRow | undefined) =>
    !!row?.signing_since &&
    new Date(row.signing_since).getTime() + options.everySeconds * 1000 <= options.now.getTime();
  // A cheap read first: key generation (outside the lock) only when a rotation looks due.
  if (!due(await readRow(db, options.box))) return undefined;
  return rotate(db, { ...options, onlyIf: due });
}

async function rotate(
  db: Database,
  options: {
    now: Date;
    retentionSeconds: number;
    algs: SigningAlg[];
    onlyIf?: (row: KeyRow) => boolean;
  } & KeyStoreOptions,
): Promise<{ kid: string; kids: string[]; retired: string[] } | undefined> {
  const fresh = await Promise.all(options.algs.map(generateSigningKey));
  await loadKeyMaterial(db, options); // the row exists from here on
  return db.kysely.transaction().execute(async (trx) => {
    const row = (await lockRow(trx, options.box))!;
    if (options.onlyIf && !options.onlyIf(row)) return undefined;
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
    await writeRow(trx, options.box, { ...row, jwks, key_meta: meta }, options.now);
    return {
      kid: fresh[0]!.kid!,
      kids: fresh.map((k) => k.kid!),
      retired: kept.map((k) => k.kid!).filter(Boolean),
    };
  });
}
