import { sql, type Database } from '@acme/db';
import type { Clock } from '@acme/db/clock';
import type { AccessToken, ClientCredentials, JWTStructured, KoaContextWithOIDC } from 'oidc-provider';
import type { AdapterRegistry } from './adapter/postgres-adapter.ts';

/**
 * Hydra's consent session: `session.access_token` becomes the access token's `ext` claim and
 * `session.id_token` the extra userinfo claims. Stored per grant, so it survives refreshes.
 * JWT access tokens are not stored by oidc-provider; we keep a small index row per token
 * (`AccessToken` model, keyed by jti, carrying the grant id; written with the `ext` lookup) so
 * that revoking a grant also deactivates its access tokens for introspection and userinfo.
 */

export type JsonObject = Record<string, unknown>;

export interface ConsentSession {
  access_token: JsonObject;
  id_token: JsonObject;
}

export interface ClaimsStore {
  saveConsentSession(grantId: string, session: ConsentSession, ttlSeconds: number): Promise<void>;
  findConsentSession(grantId: string): Promise<ConsentSession | undefined>;
  extraTokenClaims(
    ctx: KoaContextWithOIDC,
    token: AccessToken | ClientCredentials,
  ): Promise<JsonObject | undefined>;
  customizeJwt(
    ctx: KoaContextWithOIDC,
    token: AccessToken | ClientCredentials,
    jwt: JWTStructured,
  ): Promise<void>;
  /** Whether the access token with this jti is still backed by a live grant. */
  accessTokenActive(jti: string): Promise<boolean>;
}

export function createClaimsStore(deps: {
  db: Database;
  clock: Clock;
  adapters: AdapterRegistry;
}): ClaimsStore {
  const { db, clock, adapters } = deps;

  async function findConsentSession(grantId: string): Promise<ConsentSession | undefined> {
    const row = (
      await sql<ConsentSession>`
        select access_token, id_token from oauth2_consent_sessions
        where grant_id = ${grantId} and expires_at > ${clock.now().toISOString()}::timestamptz`.execute(
        db.kysely,
      )
    ).rows[0];
    return row ? { access_token: row.access_token, id_token: row.id_token } : undefined;
  }

  return {
    async saveConsentSession(grantId, session, ttlSeconds) {
      const expiresAt = new Date(clock.now().getTime() + ttlSeconds * 1000).toISOString();
      await sql`
        insert into oauth2_consent_sessions (grant_id, access_token, id_token, expires_at)
        values (${grantId}, ${JSON.stringify(session.access_token)}, ${JSON.stringify(session.id_token)},
                ${expiresAt}::timestamptz)
        on conflict (grant_id) do update set access_token = excluded.access_token,
          id_token = excluded.id_token, expires_at = excluded.expires_at, updated_at = now()`.execute(
        db.kysely,
      );
    },

    findConsentSession,

    /**
     * `{ext}` for the access token; for a JWT access token also records its index row, in the
     * same statement (one round trip per token).
     */
    async extraTokenClaims(_ctx, token) {
      const grantId = 'grantId' in token && typeof token.grantId === 'string' ? token.grantId : undefined;
      if (!grantId) return undefined;
      const now = clock.now();
      const jti = token.jti;
      if (token.kind !== 'AccessToken' || typeof jti !== 'string') {
        return { ext: (await findConsentSession(grantId))?.access_token ?? {} };
      }
      const { exp: known, expiration } = token as unknown as { exp?: number; expiration: number };
      const exp = known ?? Math.floor(now.getTime() / 1000) + expiration;
      const index = { jti, grantId, clientId: token.clientId, exp };
      const row = (
        await sql<{ access_token: JsonObject }>`
          with indexed as (
            insert into oauth2_models (model, id, payload, grant_id, expires_at)
            values ('AccessToken', ${jti}, ${JSON.stringify(index)}, ${grantId},
                    to_timestamp(${exp}::float8))
            on conflict (model, id) do nothing
          )
          select access_token from oauth2_consent_sessions
          where grant_id = ${grantId} and expires_at > ${now.toISOString()}::timestamptz`.execute(db.kysely)
      ).rows[0];
      return { ext: row?.access_token ?? {} };
    },

    async customizeJwt(_ctx, _token, jwt) {
      const payload = jwt.payload as JsonObject;
      const scope = typeof payload.scope === 'string' ? payload.scope : '';
      payload.scp = scope ? scope.split(' ') : [];
      // Hydra's `aud` is a list.
      if (typeof payload.aud === 'string') payload.aud = [payload.aud];
    },

    async accessTokenActive(jti) {
      const record = await adapters.get('AccessToken').findRecord(jti);
      if (!record?.payload.grantId) return false;
      const grant = await adapters.get('Grant').find(record.payload.grantId);
      return grant !== undefined;
    },
  };
}
