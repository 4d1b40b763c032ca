import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

// Server-side request forgery through an organisation's identity provider: an org-admin names the
// issuer, and the identity service calls it (discovery, token, JWKS, userinfo) at every sign-in.
// Here the identity service runs with the production guard (no private addresses; plain http only
// for `localhost`, so that the address check, not the scheme, is what refuses), and the issuer's
// name resolves to loopback, where a server counts every connection it gets.

describe('identity: calls to an organisation IdP under the SSRF guard', () => {
  let stack: SsoStack;
  let inside: Server;
  let connections = 0;

  beforeAll(async () => {
    stack = await startSsoStack({
      identityEnv: { IDENTITY_SSO_HTTP_HOSTS: 'localhost', IDENTITY_SSO_ALLOW_PRIVATE: 'false' },
      providers: async () => {
        // An internal service: it answers a discovery document to anyone who connects.
        inside = createServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
        inside.on('connection', () => {
          connections += 1;
        });
        await new Promise<void>((r) => inside.listen(0, '127.0.0.1', r));
        return [{ close: () => new Promise<void>((r) => inside.close(() => r())) }];
      },
    });
    const org = await stack.createOrganisation('Umbrella', 'umbrella.test');
    const sso = await stack.users('PUT', `/admin/organisations/${org}/sso`, {
      provider: 'umbrella',
      issuer: `http://localhost:${(inside.address() as AddressInfo).port}`,
      clientId: 'x',
      clientSecret: 'y',
    });
    expect(sso.status, JSON.stringify(sso.body)).toBe(200);
  }, 60_000);
  afterAll(() => stack.close());

  it("an organisation's IdP discovery pointing at a private address is refused by the identity service", async () => {
    const browser = new Browser();
    const flow = await stack.newLoginFlow(browser);
    const location = await stack.submitSso(browser, flow, 'umbrella');
    expect(connections).toBe(0);
    expect(location).toBe(`${APP}/account/login?flow=${flow.id}`);
    expect(await stack.flowMessages(browser, flow.id)).toEqual([
      expect.stringContaining('could not be reached'),
    ]);
  });
});
