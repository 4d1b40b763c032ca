import type { Middleware } from 'koa';
import type { OAuth2Config } from '../config.ts';
import { REGISTRATION_ROUTE } from './registration.ts';

const OPENID_CONFIGURATION = '/.well-known/openid-configuration';
/** RFC 8414's authorization server metadata: the same document as OpenID Connect discovery's. */
export const AUTHORIZATION_SERVER_METADATA = '/.well-known/oauth-authorization-server';

/**
 * Serves the discovery document at RFC 8414's address as well as OpenID Connect's, and names the
 * registration endpoint in both when dynamic client registration is on, and client ID metadata
 * documents when they are accepted.
 */
export function discoveryDocuments(config: OAuth2Config): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const asked = ctx.path;
    if (asked !== OPENID_CONFIGURATION && asked !== AUTHORIZATION_SERVER_METADATA) return next();
    ctx.path = OPENID_CONFIGURATION;
    try {
      await next();
    } finally {
      ctx.path = asked;
    }
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status !== 200 || !body || typeof body !== 'object') return;
    if (config.registration.mode !== 'off') {
      ctx.body = { ...body, registration_endpoint: `${config.issuer}${REGISTRATION_ROUTE}` };
    }
    if (config.clientIdMetadataDocuments) {
      ctx.body = { ...(ctx.body as object), client_id_metadata_document_supported: true };
    }
  };
}
