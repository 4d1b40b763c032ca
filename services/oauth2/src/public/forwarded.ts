import type { Middleware } from 'koa';
import { clientAddress, proxyTrust, type TrustProxy } from '@acme/service-kit/proxy-trust';

/**
 * First middleware of the public app: what oidc-provider (Koa) reads about where a request came
 * from is decided here, never by the client.
 *
 * - The client's address (`ctx.ip`) follows `TRUST_PROXY` like the other services'
 *   `request.ip`: a hop count or a list of proxy addresses, walking `X-Forwarded-For` from the
 *   right; the entries a client writes itself are never taken.
 * - Every URL oidc-provider publishes (discovery endpoints, `jwks_uri`, redirects built with
 *   `urlFor()`) comes from the configured issuer: `Host` is set to the issuer's host and
 *   `X-Forwarded-Proto` to its scheme, and a client's `X-Forwarded-Host` is dropped. The
 *   provider runs with `proxy` on only so that Koa reads that scheme (secure cookies behind a
 *   TLS-terminating proxy).
 */
export function forwardedFromIssuer(issuer: string, trust: TrustProxy): Middleware {
  const url = new URL(issuer);
  const trusted = proxyTrust(trust);
  return async (ctx, next) => {
    const headers = ctx.req.headers;
    ctx.request.ip = clientAddress(ctx.req.socket.remoteAddress, headers['x-forwarded-for'], trusted);
    delete headers['x-forwarded-for'];
    delete headers['x-forwarded-host'];
    headers.host = url.host;
    headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
    await next();
  };
}
