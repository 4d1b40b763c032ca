import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrgIdp, type OrgIdp } from '@acme/dev';
import { http } from '../harness.ts';
import { Jar } from '../jar.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// The console's Single sign-on section (issue 24) on the real authorization server (bearer tokens
// by introspection) and a real OpenID Provider (the organisation IdP stand-in).

const ADMIN_APP = 'http://localhost:4002';
const TEST_REDIRECT = `${ADMIN_APP}/admin/sso/test-callback`;
const PASSWORD = 'Pat-Demo-2026!';
const CLIENT_SECRET = 'acme-console-client-secret-9f3k';

describe('console API: single sign-on', () => {
  let stack: ConsoleStack;
  let idp: OrgIdp;
  let hostile: Server;
  let hostileUrl = '';
  let acme = '';
  let other = '';
  const tokens: Record<string, string> = {};
  let ada: { id: string; identityId: string; email: string };
  const base = () => `/console/organisations/${acme}/sso`;
  const provider = () => ({
    issuer: idp.issuer,
    clientId: 'acme-console',
    clientSecret: CLIENT_SECRET,
    scopes: ['openid', 'email', 'profile'],
    jit: false,
    enforce: false,
  });

  beforeAll(async () => {
    idp = await startOrgIdp({
      port: 0,
      users: [{ email: 'pat@acme.test', password: PASSWORD, givenName: 'Pat', familyName: 'Smith' }],
      clients: [{ clientId: 'acme-console', clientSecret: CLIENT_SECRET, redirectUris: [TEST_REDIRECT] }],
    });
    // A provider that misbehaves: another issuer in its discovery, an endless answer, no answer, a redirect.
    hostile = createServer((req, res) => {
      if (req.url?.startsWith('/mismatch/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: 'https://login.evil.example', jwks_uri: 'https://x' }));
      } else if (req.url?.startsWith('/huge/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"issuer":"${'a'.repeat(400_000)}"}`);
      } else if (req.url?.startsWith('/redirect/')) {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url?.startsWith('/slow/')) {
        // Never answers: the time-out ends it.
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://localhost:${(hostile.address() as AddressInfo).port}`;
    stack = await startConsoleStack({
      env: {
        CONSOLE_SSO_HTTP_HOSTS: 'localhost',
        CONSOLE_SSO_ALLOW_PRIVATE: 'true',
        CONSOLE_SSO_FETCH_TIMEOUT_MS: '1000',
        CONSOLE_SSO_TEST_REDIRECT_URI: TEST_REDIRECT,
      },
    });
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    const people = {
      ada,
      colleague: await stack.newUser(acme, 'acme.test', 'org-admin'),
      lead: await stack.newUser(acme, 'acme.test', 'admin'),
      grace: await stack.newUser(acme, 'acme.test', 'member'),
      stranger: await stack.newUser(other, 'other.test', 'org-admin'),
    };
    for (const [name, person] of Object.entries(people))
      tokens[name] = await stack.tokenFor(person.identityId);
  }, 60_000);
  afterAll(async () => {
    hostile?.closeAllConnections();
    await new Promise((resolve) => hostile?.close(resolve));
    await idp?.close();
    await stack?.close();
  });

  async function setProvider(overrides: Record<string, unknown> = {}) {
    const res = await stack.call(tokens.ada, 'PUT', base(), { ...provider(), ...overrides });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  }

  /** Starts a Test sign-in as `who` and signs in at the provider: the code and state the popup gets. */
  async function signInAtProvider(who = 'ada'): Promise<{ code: string; state: string }> {
    const started = await stack.call(tokens[who], 'POST', `${base()}/test-sign-in`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const jar = new Jar(ADMIN_APP);
    const page = await jar.fetch(started.body.authorizationUrl);
    const interaction = new URL(page.res.headers.get('location')!, started.body.authorizationUrl);
    expect(interaction.toString()).toMatch(new RegExp(`^${idp.issuer}/interaction/`));
    await jar.fetch(interaction.toString());
    const login = await jar.fetch(`${interaction.toString()}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'pat@acme.test', password: PASSWORD }).toString(),
    });
    const back = await jar.navigateToApp(new URL(login.res.headers.get('location')!, idp.issuer).toString());
    expect(`${back.origin}${back.pathname}`).toBe(TEST_REDIRECT);
    expect(back.searchParams.get('state')).toBe(started.body.state);
    return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
  }

  const complete = (who: string, body: unknown, org = acme) =>
    stack.call(tokens[who], 'POST', `/console/organisations/${org}/sso/test-sign-in/complete`, body);

  describe('set, show, remove', () => {
    it('shows the redirect URIs before anything is set', async () => {
      const res = await stack.call(tokens.ada, 'GET', base());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        provider: null,
        redirectUris: {
          signIn: `${stack.urls.identityPublic}/self-service/methods/oidc/callback/acme`,
          testSignIn: TEST_REDIRECT,
        },
        serviceProvider: {
          entityId: `${stack.urls.identityPublic}/self-service/methods/saml/metadata/acme`,
          metadataUrl: `${stack.urls.identityPublic}/self-service/methods/saml/metadata/acme`,
          acsUrl: `${stack.urls.identityPublic}/self-service/methods/saml/acs/acme`,
        },
      });
    });

    it('writes the secret once: no answer, event or log carries it, and saving without it keeps it', async () => {
      const set = await setProvider({ jit: true, enforce: true });
      expect(set.body.provider).toMatchObject({
        provider: 'acme',
        issuer: idp.issuer,
        clientId: 'acme-console',
        jit: true,
        enforce: true,
      });
      const shown = await stack.call(tokens.ada, 'GET', base());
      for (const answer of [set.body, shown.body]) {
        const text = JSON.stringify(answer);
        expect(text).not.toContain(CLIENT_SECRET);
        expect(text).not.toContain(CLIENT_SECRET.slice(-4));
        expect(text.toLowerCase()).not.toContain('secret');
      }
      // The identity service reads the provider (with its secret) through the operator's one code path, at once.
      const config = await http(`${stack.svc.adminUrl}/admin/sso/providers/acme`);
      expect(config.body).toMatchObject({ issuer: idp.issuer, clientSecret: CLIENT_SECRET, jit: true });
      // Saved again without a secret: the stored one stays.
      const { clientSecret: _omit, ...withoutSecret } = provider();
      const kept = await stack.call(tokens.ada, 'PUT', base(), { ...withoutSecret, jit: false });
      expect(kept.status).toBe(200);
      expect((await http(`${stack.svc.adminUrl}/admin/sso/providers/acme`)).body).toMatchObject({
        clientSecret: CLIENT_SECRET,
        jit: false,
      });
      const events = await stack.call(
        tokens.ada,
        'GET',
        `/console/organisations/${acme}/events?type=sso.provider_changed`,
      );
      expect(events.body.events.length).toBeGreaterThanOrEqual(2);
      expect(events.body.events[0]).toMatchObject({
        actorKind: 'person',
        actorId: ada.id,
        ip: expect.any(String),
      });
      expect(JSON.stringify(events.body.events)).not.toContain(CLIENT_SECRET.slice(-4));
    });

    it('removes the provider (after a confirmation in the app), and records it', async () => {
      await setProvider();
      const removed = await stack.call(tokens.ada, 'DELETE', base());
      expect(removed.status).toBe(204);
      expect((await stack.call(tokens.ada, 'GET', base())).body.provider).toBeNull();
      expect((await http(`${stack.svc.adminUrl}/admin/sso/providers/acme`)).status).toBe(404);
      const events = await stack.call(
        tokens.ada,
        'GET',
        `/console/organisations/${acme}/events?type=sso.provider_changed`,
      );
      // The fake clock stands still: find the removal among events of the same instant.
      const removal = events.body.events.find((e: any) => e.details.change === 'removed');
      expect(removal).toMatchObject({ actorKind: 'person', details: { issuer: idp.issuer } });
      const again = await stack.call(tokens.ada, 'DELETE', base());
      expect(again.status).toBe(404);
      expect(again.body.errorCode).toBe('SSO_NOT_CONFIGURED');
    });

    it('a first provider needs a secret; an issuer must be https (plain http only for configured hosts)', async () => {
      const { clientSecret: _omit, ...withoutSecret } = provider();
      const noSecret = await stack.call(
        tokens.ada,
        'PUT',
        `/console/organisations/${other}/sso`,
        withoutSecret,
      );
      expect(noSecret.status).toBe(403);
      await stack.call(tokens.ada, 'DELETE', base());
      const first = await stack.call(tokens.ada, 'PUT', base(), withoutSecret);
      expect(first.status).toBe(400);
      expect(first.body).toMatchObject({
        errorCode: 'INVALID_REQUEST',
        message: expect.stringContaining('clientSecret'),
      });
      const http80 = await stack.call(tokens.ada, 'PUT', base(), {
        ...provider(),
        issuer: 'http://idp.example.com',
      });
      expect(http80.status).toBe(400);
      expect(http80.body.message).toContain('https');
    });
  });

  describe('Test connection', () => {
    it('reports every check passed for a working provider', async () => {
      await setProvider();
      const res = await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, {});
      expect(res.status).toBe(200);
      expect(res.body.ok).toBe(true);
      expect(res.body.checks.map((c: any) => [c.check, c.ok])).toEqual([
        ['discovery', true],
        ['issuer', true],
        ['authorization_endpoint', true],
        ['token_endpoint', true],
        ['jwks', true],
        ['algorithms', true],
        ['scopes', true],
      ]);
      expect(res.body.checks.find((c: any) => c.check === 'jwks').value).toBe('1');
    });

    it('names what fails: another issuer, no document, too large, a redirect, a time-out', async () => {
      const run = async (issuer: string) =>
        (await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, { issuer })).body;
      const mismatch = await run(`${hostileUrl}/mismatch`);
      expect(mismatch.checks[1]).toMatchObject({
        check: 'issuer',
        ok: false,
        reason: 'mismatch',
        value: 'https://login.evil.example',
      });
      expect((await run(`${hostileUrl}/absent`)).checks[0]).toMatchObject({
        check: 'discovery',
        ok: false,
        reason: 'http_status',
      });
      expect((await run(`${hostileUrl}/huge`)).checks[0]).toMatchObject({ ok: false, reason: 'too_large' });
      expect((await run(`${hostileUrl}/redirect`)).checks[0]).toMatchObject({
        ok: false,
        reason: 'redirect',
      });
      const started = Date.now();
      expect((await run(`${hostileUrl}/slow`)).checks[0]).toMatchObject({ ok: false, reason: 'timeout' });
      expect(Date.now() - started).toBeLessThan(5000);
      const plain = await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, {
        issuer: 'http://10.0.0.1',
      });
      expect(plain.status).toBe(400);
    });
  });

  describe('Test sign-in', () => {
    it('runs a real sign-in at the provider and shows its claims, without signing anyone in', async () => {
      await setProvider();
      const { code, state } = await signInAtProvider();
      const res = await complete('ada', { state, code });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        issuer: idp.issuer,
        mapped: { email: 'pat@acme.test', emailVerified: true, firstName: 'Pat', lastName: 'Smith' },
        domainMatches: true,
      });
      expect(res.body.claims).toMatchObject({ iss: idp.issuer, aud: 'acme-console', email: 'pat@acme.test' });
      // Nobody was created or signed in: no user, no identity for the tested person.
      const users = await http(`${stack.svc.adminUrl}/admin/users?organisationId=${acme}`);
      expect((users.body as any).users.map((u: any) => u.email)).not.toContain('pat@acme.test');
      const identities = await fetch(
        `${stack.urls.identityAdmin}/admin/identities?credentials_identifier=pat@acme.test`,
      );
      expect(await identities.json()).toEqual([]);
    });

    it('state replay: a spent state is refused, and of 50 parallel completions exactly one succeeds', async () => {
      await setProvider();
      const first = await signInAtProvider();
      expect((await complete('ada', first)).status).toBe(200);
      const replay = await complete('ada', first);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ errorCode: 'SSO_TEST_STATE_INVALID', message: expect.any(String) });
      const second = await signInAtProvider();
      const answers = await Promise.all(Array.from({ length: 50 }, () => complete('ada', second)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.body.errorCode === 'SSO_TEST_STATE_INVALID')).toHaveLength(49);
    });

    it("a test sign-in's result can not be requested by another admin of the organisation or another organisation", async () => {
      await setProvider();
      const mine = await signInAtProvider();
      const colleague = await complete('colleague', mine);
      expect(colleague.status).toBe(400);
      expect(colleague.body.errorCode).toBe('SSO_TEST_STATE_INVALID');
      const strangerOwnPath = await complete('stranger', mine, other);
      expect(strangerOwnPath.body.errorCode).toBe('SSO_TEST_STATE_INVALID');
      const strangerOurPath = await complete('stranger', mine);
      expect(strangerOurPath.status).toBe(403);
      expect(strangerOurPath.body.errorCode).toBe('FORBIDDEN');
      // None of them spent it: its admin still gets the claims.
      expect((await complete('ada', mine)).status).toBe(200);
    });

    it('an ID token naming another issuer is refused, with the claim in words', async () => {
      await setProvider();
      const started = await signInAtProvider();
      idp.faults.idTokenIssuer = 'https://login.evil.example';
      try {
        const res = await complete('ada', started);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({
          errorCode: 'SSO_TEST_FAILED',
          message: expect.stringContaining('iss claim'),
        });
        expect(JSON.stringify(res.body)).not.toContain('pat@acme.test');
      } finally {
        delete idp.faults.idTokenIssuer;
      }
    });

    it('an expired state is refused; the provider error is reported', async () => {
      await setProvider();
      const started = await signInAtProvider();
      // Ten minutes pass (on the row: the access token itself lives shorter than that).
      await (stack.db.kysely as any)
        .updateTable('sso_test_sign_ins')
        .set({ expires_at: new Date(stack.clock.now().getTime() - 1) })
        .where('state_hash', '=', createHash('sha256').update(started.state).digest('base64url'))
        .execute();
      expect((await complete('ada', started)).body.errorCode).toBe('SSO_TEST_STATE_INVALID');
      const cancelled = await stack.call(tokens.ada, 'POST', `${base()}/test-sign-in`, {});
      const denied = await complete('ada', { state: cancelled.body.state, error: 'access_denied' });
      expect(denied.status).toBe(422);
      expect(denied.body.message).toContain('access_denied');
    });
  });

  describe('refusals: {errorCode, message}, never a 5xx', () => {
    const everyRoute = (): [string, string, unknown?][] => [
      ['GET', base()],
      ['PUT', base(), provider()],
      ['DELETE', base()],
      ['POST', `${base()}/test-connection`, {}],
      ['POST', `${base()}/test-sign-in`, {}],
      ['POST', `${base()}/test-sign-in/complete`, { state: 'x', code: 'y' }],
    ];

    it('refuses a missing token (401), an admin or a member (403) and an expired token (401)', async () => {
      for (const [method, path, json] of everyRoute()) {
        const anonymous = await stack.call(undefined, method, path, json);
        expect(anonymous.status, `${method} ${path}`).toBe(401);
        expect(anonymous.body).toMatchObject({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) });
        for (const who of ['lead', 'grace']) {
          const denied = await stack.call(tokens[who], method, path, json);
          expect(denied.status, `${who} ${method} ${path}`).toBe(403);
          expect(denied.body).toMatchObject({
            errorCode: 'PERMISSION_DENIED',
            message: expect.stringContaining('ConfigureSSO'),
          });
        }
      }
      const now = stack.clock.now();
      stack.clock.advance(24 * 3_600_000);
      try {
        for (const [method, path, json] of everyRoute()) {
          const expired = await stack.call(tokens.ada, method, path, json);
          expect(expired.status, `${method} ${path}`).toBe(401);
          expect(expired.body.errorCode).toBe('UNAUTHENTICATED');
        }
      } finally {
        stack.clock.set(now);
      }
    });

    it("refuses another organisation's org-admin on every route (403 FORBIDDEN), and changes nothing", async () => {
      await setProvider();
      for (const [method, path, json] of everyRoute()) {
        const res = await stack.call(tokens.stranger, method, path, json);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.errorCode).toBe('FORBIDDEN');
      }
      expect((await stack.call(tokens.ada, 'GET', base())).body.provider.issuer).toBe(idp.issuer);
      const unknown = await stack.call(tokens.ada, 'GET', '/console/organisations/not-a-uuid/sso');
      expect(unknown.status).toBe(400);
    });

    it('answers bad input with 400: malformed JSON, missing fields, unknown fields, NUL, oversized, bad scopes', async () => {
      const bodies: unknown[] = [
        {},
        { ...provider(), issuer: undefined },
        { ...provider(), extra: true },
        { ...provider(), clientId: 'a\u0000b' },
        { ...provider(), clientSecret: 'x'.repeat(2001) },
        { ...provider(), scopes: ['email'] },
        { ...provider(), issuer: 'https://idp.example.com/?q=1' },
        { ...provider(), jit: 'yes' },
      ];
      for (const body of bodies) {
        const res = await stack.call(tokens.ada, 'PUT', base(), body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body).toMatchObject({ errorCode: expect.any(String), message: expect.any(String) });
      }
      for (const body of [
        {},
        { state: '' },
        { state: 'x'.repeat(201), code: 'y' },
        { state: 's', error: 'a b' },
      ]) {
        const res = await complete('ada', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const malformed = await fetch(`${stack.svc.publicUrl}${base()}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json' },
        body: '{"issuer":',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({
        errorCode: expect.any(String),
        message: expect.any(String),
      });
    });
  });
});
