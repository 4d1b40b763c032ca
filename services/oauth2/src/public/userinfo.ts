import { TRACE_CONTEXT_HEADERS } from '@acme/service-kit/tracing-gate';
import type { Middleware } from 'koa';
import { ACCESS_TOKEN_RESOURCE, type OAuth2Runtime } from '../context.ts';
import type { TokenVerifier } from '../introspection.ts';

/**
 * `/userinfo` for our JWT access tokens (oidc-provider's own userinfo only accepts opaque tokens
 * without an audience): `{sub, ...consent session.id_token}`, like Hydra, for a token whose audience
 * is the platform's APIs (the default resource). CORS for the apps' origins.
 */
export function userinfo(rt: OAuth2Runtime, verifier: TokenVerifier, path: string): Middleware {
  const origins = new Set(rt.config.clients.map((c) => c.origin));
  return async (ctx, next) => {
    if (ctx.path !== path) return next();
    const origin = ctx.get('origin');
    if (origin && origins.has(origin)) {
      ctx.vary('Origin');
      ctx.set('Access-Control-Allow-Origin', origin);
    }
    if (ctx.method === 'OPTIONS') {
      if (origin && origins.has(origin)) {
        ctx.set('Access-Control-Allow-Methods', 'GET,POST');
        ctx.set('Access-Control-Allow-Headers', ['Authorization', ...TRACE_CONTEXT_HEADERS].join(', '));
        ctx.set('Access-Control-Max-Age', '3600');
      }
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'POST') return next();
    ctx.set('Cache-Control', 'no-store');
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(ctx.get('authorization'));
    const payload = match?.[1] ? await verifier.verifyAccessToken(match[1]) : undefined;
    // A token asked for another resource (RFC 8707: an assistant's token for the MCP server) is
    // good there only: userinfo answers tokens whose audience is the platform's APIs.
    const aud = payload?.aud === undefined ? [] : [payload.aud].flat();
    if (!payload?.sub || !aud.includes(ACCESS_TOKEN_RESOURCE)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
      ctx.body = { error: 'invalid_token', error_description: 'invalid token provided' };
      return;
    }
    const ext = payload.jti ? await grantIdToken(rt, payload.jti) : {};
    ctx.body = { ...ext, sub: payload.sub };
  };
}

async function grantIdToken(rt: OAuth2Runtime, jti: string): Promise<Record<string, unknown>> {
  const record = await rt.adapters.get('AccessToken').findRecord(jti);
  const grantId = record?.payload.grantId;
  if (!grantId) return {};
  return (await rt.claims.findConsentSession(grantId))?.id_token ?? {};
}
