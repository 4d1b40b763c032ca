import type { FastifyInstance } from 'fastify';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether a request is a state-changing browser request from an opaque origin: `Origin: null` is
 * what sandboxed iframes, `data:` documents and some cross-origin redirects send, so no allow-list
 * can vouch for it and a CSRF defence that trusts "no known origin" must not accept it.
 *
 * One exception: the app's own pages send `Referrer-Policy: no-referrer`, and with that policy a
 * browser sends `Origin: null` on every cross-origin form post, including the app's hidden-form
 * posts to the identity service (single sign-on). The browser then still says where the request
 * came from in `Sec-Fetch-Site`, which a page cannot forge: `same-origin` or `same-site` is our own
 * site, while an opaque origin (sandboxed frame, `data:` document) is always `cross-site`.
 */
export function isOpaqueOriginWrite(req: { method: string; headers: Record<string, unknown> }): boolean {
  if (!STATE_CHANGING.has(req.method.toUpperCase())) return false;
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin.trim().toLowerCase() !== 'null') return false;
  const site = req.headers['sec-fetch-site'];
  return !(typeof site === 'string' && (site === 'same-origin' || site === 'same-site'));
}

/**
 * Refuses state-changing requests with `Origin: null`; `refuse` builds the service's own error.
 * `exempt` names routes that are cross-site by design and carry their own proof (a SAML ACS: a signed
 * answer bound to a flow, whose IdP page may send `Referrer-Policy: no-referrer`).
 */
export function refuseOpaqueOrigins(
  app: FastifyInstance,
  refuse: () => Error,
  exempt: (path: string) => boolean = () => false,
): void {
  app.addHook('onRequest', async (req) => {
    if (isOpaqueOriginWrite(req) && !exempt(req.url.split('?')[0] ?? '')) throw refuse();
  });
}
