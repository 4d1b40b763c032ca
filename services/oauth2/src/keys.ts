import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import { sql, type Database } from '@acme/db';

/**
 * Signing keys (RS256) and cookie keys, generated on first start and kept in PostgreSQL.
 * Instances starting together converge on one row: insert … on conflict do nothing, then re-read.
 */
export interface KeyMaterial {
  /** Private JWKS for oidc-provider. */
  jwks: { keys: JWK[] };
  /** Public JWKS for our own verification (introspection, userinfo). */
  publicJwks: { keys: JWK[] };
  cookieKeys: string[];
}

const ROW_ID = 'default';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;

async function generate(): Promise<{ jwks: { keys: JWK[] }; cookieKeys: string[] }> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return {
    jwks: { keys: [{ ...jwk, kid: randomUUID(), alg: 'RS256', use: 'sig' }] },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
}

export function toPublicJwk(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

export async function loadKeyMaterial(db: Database): Promise<KeyMaterial> {
  const read = async () =>
    (
      await sql<{ jwks: { keys: JWK[] }; cookie_keys: string[] }>`
        select jwks, cookie_keys from oauth2_keys where id = ${ROW_ID}`.execute(db.kysely)
    ).rows[0];
  let row = await read();
  if (!row) {
    const fresh = await generate();
    await sql`
      insert into oauth2_keys (id, jwks, cookie_keys)
      values (${ROW_ID}, ${JSON.stringify(fresh.jwks)}, ${JSON.stringify(fresh.cookieKeys)})
      on conflict (id) do nothing`.execute(db.kysely);
    row = await read();
  }
  if (!row) throw new Error('oauth2 key material could not be stored');
  return {
    jwks: row.jwks,
    publicJwks: { keys: row.jwks.keys.map(toPublicJwk) },
    cookieKeys: row.cookie_keys,
  };
}
