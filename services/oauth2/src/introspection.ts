import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { OAuth2Runtime } from './context.ts';

/**
 * Hydra-shaped token introspection (admin API) and the access-token check behind `/userinfo`.
 * JWT access tokens are verified against our keys and must still be backed by a live grant;
 * refresh tokens are looked up through oidc-provider's model.
 */

export interface Introspection {
  active: boolean;
  sub?: string;
  client_id?: string;
  scope?: string;
  exp?: number;
  iat?: number;
  nbf?: number;
  aud?: string[];
  iss?: string;
  token_type?: string;
  token_use?: 'access_token' | 'refresh_token';
  ext?: Record<string, unknown>;
}

const INACTIVE: Introspection = { active: false };

function looksLikeJwt(token: string): boolean {
  try {
    return !!decodeProtectedHeader(token);
  } catch {
    return false;
  }
}

/** At most one re-read of the keys for an unknown key id per this many ms (a forged kid costs no more). */
const UNKNOWN_KID_RELOAD_MS = 5_000;

export interface TokenVerifierOptions {
  /**
   * Re-reads the signing keys from the database (true when they changed). Called when a token
   * names a key this instance does not have: another instance may have just rotated.
   */
  reloadKeys?: () => Promise<boolean>;
  /**
   * Which of the kids were revoked (`keys:revoke`): asked for every token, with the kid this
   * instance signs with, so that every instance refuses a revoked key's tokens at once and one
   * still signing with it re-reads its keys.
   */
  revokedKeys?: (kids: (string | undefined)[]) => Promise<Set<string>>;
}

export function createTokenVerifier(rt: OAuth2Runtime, options: TokenVerifierOptions = {}) {
  // Follows key rotation: rebuilt when the runtime's key material changes.
  let current = rt.keys;
  let localJwks = createLocalJWKSet(current.publicJwks as Parameters<typeof createLocalJWKSet>[0]);
  const refresh = () => {
    if (rt.keys === current) return;
    current = rt.keys;
    localJwks = createLocalJWKSet(current.publicJwks as Parameters<typeof createLocalJWKSet>[0]);
  };
  let lastReload = Number.NEGATIVE_INFINITY;
  let reloading: Promise<boolean> | undefined;
  /** One re-read at a time, and at most one per UNKNOWN_KID_RELOAD_MS. */
  const reloadForUnknownKey = async (): Promise<boolean> => {
    if (!options.reloadKeys) return false;
    if (!reloading) {
      if (Date.now() - lastReload < UNKNOWN_KID_RELOAD_MS) return false;
      lastReload = Date.now();
      reloading = options.reloadKeys().finally(() => (reloading = undefined));
    }
    return reloading.catch(() => false);
  };
  /** A re-read for a revoked signing key: not rate-limited (it stops once the key is gone). */
  const reloadNow = async (): Promise<boolean> => {
    if (!options.reloadKeys) return false;
    reloading ??= options.reloadKeys().finally(() => (reloading = undefined));
    return reloading.catch(() => false);
  };
  const jwks = async (...args: Parameters<typeof localJwks>) => {
    const [header, token] = args;
    refresh();
    try {
      return await localJwks(header, token);
    } catch (error) {
      // A key another instance rotated in a moment ago: read the keys again, then look once more.
      if (!(error instanceof errors.JWKSNoMatchingKey) || !(await reloadForUnknownKey())) throw error;
      refresh();
      return localJwks(header, token);
    }
  };

  /** The verified payload of a live JWT access token, or undefined. */
  async function verifyAccessToken(token: string): Promise<JWTPayload | undefined> {
    if (!looksLikeJwt(token)) return undefined;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer: rt.config.issuer,
        typ: 'at+jwt',
        algorithms: ['ES256', 'RS256'],
        currentDate: rt.clock.now(),
      });
      if (typeof payload.jti !== 'string' || !(await rt.claims.accessTokenActive(payload.jti)))
        return undefined;
      if (options.revokedKeys) {
        const signingKids = rt.keys.signingKids;
        const revoked = await options.revokedKeys([protectedHeader.kid, ...signingKids]);
        // Revoked on another instance while this one still signs with it: read the keys again.
        if (signingKids.some((kid) => revoked.has(kid))) await reloadNow();
        if (protectedHeader.kid !== undefined && revoked.has(protectedHeader.kid)) return undefined;
      }
      return payload;
    } catch {
      return undefined;
    }
  }

  async function introspectRefreshToken(token: string): Promise<Introspection> {
    const refresh = await rt.provider.RefreshToken.find(token);
    if (!refresh || !refresh.isValid || !refresh.grantId) return INACTIVE;
    const grant = await rt.provider.Grant.find(refresh.grantId);
    if (!grant) return INACTIVE;
    const session = await rt.claims.findConsentSession(refresh.grantId);
    return {
      active: true,
      sub: refresh.accountId,
      client_id: refresh.clientId,
      scope: refresh.scope ?? '',
      exp: refresh.exp,
      iat: refresh.iat,
      nbf: refresh.iat,
      aud: [],
      iss: rt.config.issuer,
      token_type: 'Bearer',
      token_use: 'refresh_token',
      ext: session?.access_token ?? {},
    };
  }

  async function introspect(token: string, scope?: string): Promise<Introspection> {
    let result: Introspection;
    const payload = await verifyAccessToken(token);
    if (payload) {
      const scp = Array.isArray(payload.scp) ? payload.scp.map(String) : [];
      const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      result = {
        active: true,
        sub: payload.sub,
        client_id: String(payload.client_id ?? ''),
        scope: scp.join(' '),
        exp: payload.exp,
        iat: payload.iat,
        nbf: payload.nbf ?? payload.iat,
        aud,
        iss: payload.iss,
        token_type: 'Bearer',
        token_use: 'access_token',
        ext: (payload.ext as Record<string, unknown> | undefined) ?? {},
      };
    } else if (looksLikeJwt(token)) {
      return INACTIVE;
    } else {
      result = await introspectRefreshToken(token);
    }
    if (result.active && scope) {
      const have = new Set((result.scope ?? '').split(' '));
      if (!scope.split(' ').every((s) => !s || have.has(s))) return INACTIVE;
    }
    return result;
  }

  return { verifyAccessToken, introspect };
}

export type TokenVerifier = ReturnType<typeof createTokenVerifier>;
