import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { IdentityError } from '../errors/identity-error.ts';
import { qs } from './query.ts';

/**
 * The rest of Kratos's public surface that the product does not use, answered as Kratos answers it
 * rather than with a 404:
 * - `GET /version` (public and admin): `{version}`.
 * - Registration is a flow kind of the engine (`flows/kinds/registration.ts`): off, 400
 *   `self_service_flow_disabled`, until an organisation opens self sign-up.
 * - `GET /sessions/token-exchange`: Kratos's native OIDC code exchange. Native (API) OIDC flows are not
 *   offered, so no exchange code ever exists: 400 without both codes, 404 otherwise, as Kratos
 *   answers for an unknown code.
 * - `GET /.well-known/ory/webauthn.js`: the script the WebAuthn trigger nodes call (`assets/webauthn.js`).
 */

const VERSION: string = `v${
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version
}`;

const WEBAUTHN_JS = readFileSync(new URL('./assets/webauthn.js', import.meta.url), 'utf8');

export function registerKratosSurface(pub: FastifyInstance, admin: FastifyInstance): void {
  for (const app of [pub, admin]) app.get('/version', async () => ({ version: VERSION }));
  pub.get('/.well-known/ory/webauthn.js', async (_req, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(WEBAUTHN_JS),
  );

  pub.get('/sessions/token-exchange', async (req) => {
    const initCode = qs(req.query, 'init_code');
    const returnToCode = qs(req.query, 'return_to_code');
    if (!initCode || !returnToCode) {
      throw new IdentityError(400, { reason: 'init_code and return_to_code query params must be set' });
    }
    throw new IdentityError(404, { reason: 'no session yet for this "code"' });
  });
}
