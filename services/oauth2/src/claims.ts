import { sql, type Database } from '@acme/db';
import type { RawBuilder } from 'kysely';
import type { Clock } from '@acme/db/clock';
import type { AccessToken, ClientCredentials, JWTStructured, KoaContextWithOIDC } from 'oidc-provider';
import type { AdapterRegistry } from './adapter/postgres-adapter.ts';
import { requestState, type StoredConsent } from './request-state.ts';

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

/** Who a grant stands for: the identity session it was signed in with (Hydra's identity_provider_session_id). */
export interface GrantBinding {
  identitySessionId: string | null;
  subject: string | null;
}

/** A live grant of a subject: the application, its scopes, when it was granted. */
interface SubjectGrant {
  grantId: string;
  clientId: string;
  scopes: string[];
  grantedAt: Date;
}

export interface ClaimsStore {
  saveConsentSession(
    grantId: string,
    session: ConsentSession,
    ttlSeconds: number,
    binding?: GrantBinding,
  ): Promise<void>;
  findConsentSession(grantId: string): Promise<ConsentSession | undefined>;
  /** The stored consent with its binding: from this request's state when the adapter already read it. */
  storedConsent(grantId: string): Promise<StoredConsent | undefined>;
  /** Ends a grant: the grant, every token of it and its consent session. */
  endGrant(grantId: string): Promise<void>;
  /** The live grants of a subject (a person's connected applications), newest first. */
  grantsOf(subject: string): Promise<SubjectGrant[]>;
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

  async function storedConsent(grantId: string): Promise<StoredConsent | undefined> {
    const known = requestState()?.consents.get(grantId);
    if (known !== undefined) return known ?? undefined;
    const row = (
      await sql<{
        access_token: JsonObject;
        id_token: JsonObject;
        identity_session_id: string | null;
        subject: string | null;
      }>`
        select access_token, id_token, identity_session_id, subject from oauth2_consent_sessions
        where grant_id = ${grantId} and expires_at > ${clock.now().toISOString()}::timestamptz`.execute(
        db.kysely,
      )
    ).rows[0];
    return row
      ? {
          access_token: row.access_token,
          id_token: row.id_token,
          identitySessionId: row.identity_session_id,
          subject: row.subject,
        }
      : undefined;
  }

  return {
    async saveConsentSession(grantId, session, ttlSeconds, binding) {
      const expiresAt = new Date(clock.now().getTime() + ttlSeconds * 1000).toISOString();
      await sql`
        insert into oauth2_consent_sessions
          (grant_id, access_token, id_token, expires_at, identity_session_id, subject)
        values (${grantId}, ${JSON.stringify(session.access_token)}, ${JSON.stringify(session.id_token)},
                ${expiresAt}::timestamptz, ${binding?.identitySessionId ?? null}, ${binding?.subject ?? null})
        on conflict (grant_id) do update set access_token = excluded.access_token,
          id_token = excluded.id_token, expires_at = excluded.expires_at,
          identity_session_id = excluded.identity_session_id, subject = excluded.subject,
          updated_at = now()`.execute(db.kysely);
    },

    findConsentSession,
    storedConsent,

    async grantsOf(subject) {
      const now = clock.now();
      const { rows } = await sql<{ id: string; payload: Record<string, unknown> }>`
        select id, payload from oauth2_models
        where model = 'Grant' and payload->>'accountId' = ${subject}
          and (expires_at is null or expires_at > ${now})
        order by (payload->>'iat')::bigint desc
        limit 200`.execute(db.kysely);
      return rows.map((r) => {
        const p = r.payload as {
          clientId?: string;
          iat?: number;
          openid?: { scope?: string };
          resources?: Record<string, string>;
        };
        const scopes = new Set((p.openid?.scope ?? '').split(' ').filter(Boolean));
        for (const s of Object.values(p.resources ?? {})) for (const x of s.split(' ')) if (x) scopes.add(x);
        return {
          grantId: r.id,
          clientId: String(p.clientId ?? ''),
          scopes: [...scopes],
          grantedAt: new Date((p.iat ?? 0) * 1000),
        };
      });
    },

    async endGrant(grantId) {
      await sql`
        with tokens as (
          delete from oauth2_models where grant_id = ${grantId} or (model = 'Grant' and id = ${grantId})
        )
        delete from oauth2_consent_sessions where grant_id = ${grantId}`.execute(db.kysely);
    },

    /**
     * `{ext}` for the access token; for a JWT access token also records its index row, in the
     * same statement (one round trip per token).
     */
    async extraTokenClaims(_ctx, token) {
      const grantId = 'grantId' in token && typeof token.grantId === 'string' ? token.grantId : undefined;
      if (!grantId) return undefined;
      const now = clock.now();
      const jti = token.jti;
      const fresh = requestState()?.fresh.get(grantId);
      if (token.kind !== 'AccessToken' || typeof jti !== 'string') {
        return { ext: fresh?.access_token ?? (await storedConsent(grantId))?.access_token ?? {} };
      }
      const { exp: known, expiration } = token as unknown as { exp?: number; expiration: number };
      const exp = known ?? Math.floor(now.getTime() / 1000) + expiration;
      const index = JSON.stringify({ jti, grantId, clientId: token.clientId, exp });
      const insertIndex = (cond: RawBuilder<unknown>) => sql`
        insert into oauth2_models (model, id, payload, grant_id, expires_at)
        select 'AccessToken', ${jti}::text, ${index}::jsonb, ${grantId}::text, to_timestamp(${exp}::float8)
        where ${cond}
        on conflict (model, id) do nothing`;
      const storeFresh = (cond: RawBuilder<unknown>) => sql`
        update oauth2_consent_sessions
        set access_token = ${JSON.stringify(fresh?.access_token ?? {})}::jsonb,
            id_token = ${JSON.stringify(fresh?.id_token ?? {})}::jsonb, updated_at = now()
        where grant_id = ${grantId} and ${cond}`;
      const state = requestState();
      if (state?.deferWrites) {
        // Token endpoint: written with the request's other writes, in one statement.
        state.pending.push(insertIndex);
        if (fresh) state.pending.push(storeFresh);
        const known = state.consents.get(grantId);
        if (fresh || known !== undefined) return { ext: fresh?.access_token ?? known?.access_token ?? {} };
      }
      if (fresh) {
        await sql`with indexed as (${insertIndex(sql`true`)}) ${storeFresh(sql`true`)}`.execute(db.kysely);
        return { ext: fresh.access_token };
      }
      const row = (
        await sql<{ access_token: JsonObject }>`
          with indexed as (${state?.deferWrites ? sql`select 1` : insertIndex(sql`true`)})
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
