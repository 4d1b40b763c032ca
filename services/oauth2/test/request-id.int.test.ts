import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CookieJar,
  DEFAULT_EXT,
  adminJson,
  authorizeUrl,
  exchangeCode,
  location,
  navigate,
  refresh,
  startServer,
  PLATFORM,
  type TestServer,
} from './harness.ts';

// The user service's admin API, stood in by a recorder that grants claims: at every refresh the
// authorization server asks it, and must send along the request id of the refresh.
const seen: IncomingHttpHeaders[] = [];
let users: Server;
let server: TestServer;

beforeAll(async () => {
  users = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: DEFAULT_EXT, id_token: { email: 'ada@acme.test' } })),
    );
  });
  await new Promise<void>((r) => users.listen(0, '127.0.0.1', r));
  server = await startServer({
    env: { USERS_ADMIN_URL: `http://127.0.0.1:${(users.address() as AddressInfo).port}` },
  });
});
afterAll(async () => {
  await server.close();
  await server.db.close();
  await new Promise((r) => users.close(r));
});

/** A sign-in whose login is bound to an identity session, so refreshes are checked with the user service. */
async function signInBound() {
  const jar = new CookieJar();
  const { url, verifier } = authorizeUrl(server.issuer);
  let next = location(await navigate(jar, url));
  const login = await adminJson(
    server,
    'PUT',
    `/admin/oauth2/auth/requests/login/accept?login_challenge=${next.searchParams.get('login_challenge')}`,
    { subject: 'identity-7', amr: ['password'], identity_provider_session_id: 'kratos-session-7' },
  );
  expect(login.status).toBe(200);
  next = location(await navigate(jar, login.body.redirect_to as string));
  // First-party clients skip the consent screen: the server resumes at once.
  while (next.origin === new URL(server.publicUrl).origin)
    next = location(await navigate(jar, next.toString()));
  const consentChallenge = next.searchParams.get('consent_challenge');
  if (consentChallenge) {
    const consent = await adminJson(
      server,
      'GET',
      `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
    );
    const accepted = await adminJson(
      server,
      'PUT',
      `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
      {
        grant_scope: consent.body.requested_scope,
        session: { access_token: DEFAULT_EXT, id_token: { email: 'ada@acme.test' } },
      },
    );
    next = location(await navigate(jar, accepted.body.redirect_to as string));
    while (next.origin === new URL(server.publicUrl).origin)
      next = location(await navigate(jar, next.toString()));
  }
  const tokens = await exchangeCode(server, next.searchParams.get('code')!, verifier);
  expect(tokens.status).toBe(200);
  return tokens.body.refresh_token as string;
}

describe('request ids (authorization server)', () => {
  it('forwards the refresh request id to the user service and echoes it', async () => {
    const refreshToken = await signInBound();
    seen.length = 0;
    const res = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-request-id': 'refresh-chain-9a8b7c6d',
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: PLATFORM.clientId,
      }).toString(),
    });
    expect(res.status, await res.text()).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('refresh-chain-9a8b7c6d');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((h) => h['x-request-id'] === 'refresh-chain-9a8b7c6d')).toBe(true);
  });

  it('without an incoming id, forwards the one it generated', async () => {
    const refreshToken = await signInBound();
    seen.length = 0;
    const res = await refresh(server, refreshToken);
    expect(res.status).toBe(200);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
