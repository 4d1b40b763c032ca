import type { FastifyInstance } from 'fastify';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether a request is a state-changing browser request from an opaque origin: `Origin: null` is
 * what sandboxed iframes, `data:` documents and some cross-origin redirects send, so no allow-list
 * can vouch for it and a CSRF defence that trusts "no known origin" must not accept it.
 */
export function isOpaqueOriginWrite(req: { method: string; headers: Record<string, unknown> }): boolean {
  if (!STATE_CHANGING.has(req.method.toUpperCase())) return false;
  const origin = req.headers.origin;
  return typeof origin === 'string' && origin.trim().toLowerCase() === 'null';
}

/** Refuses state-changing requests with `Origin: null`; `refuse` builds the service's own error. */
export function refuseOpaqueOrigins(app: FastifyInstance, refuse: () => Error): void {
  app.addHook('onRequest', async (req) => {
    if (isOpaqueOriginWrite(req)) throw refuse();
  });
}
