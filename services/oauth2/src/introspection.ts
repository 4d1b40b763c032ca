import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
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

export function createTokenVerifier(rt: OAuth2Runtime) {
  // Follows key rotation: rebuilt when the runtime's key material changes.
  let current = rt.keys;
  let localJwks = createLocalJWKSet(current.publicJwks as Parameters<typeof createLocalJWKSet>[0]);
  const jwks = (...args: Parameters<typeof localJwks>) => {
    const [header, token] = args;
    if (rt.keys !== current) {
      current = rt.keys;
      localJwks = createLocalJWKSet(current.publicJwks as Parameters<typeof createLocalJWKSet>[0]);
    }
    return localJwks(header, token);
  };

  /** The verified payload of a live JWT access token, or undefined. */
  async function verifyAccessToken(token: string): Promise<JWTPayload | undefined> {
    if (!looksLikeJwt(token)) return undefined;
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: rt.config.issuer,
        typ: 'at+jwt',
        algorithms: ['RS256'],
        currentDate: rt.clock.now(),
      });
      if (typeof payload.jti !== 'string' || !(await rt.claims.accessTokenActive(payload.jti)))
        return undefined;
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
