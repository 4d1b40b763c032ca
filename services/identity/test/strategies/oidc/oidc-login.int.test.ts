import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, sql, type Database } from '@acme/db';
import { ORG_IDP_DEMO_PASSWORD, ORG_IDP_DEMO_USERS, startOrgIdp, type OrgIdp } from '@acme/dev';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '@acme/users';
import { start as startIdentity } from '../../../src/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// The oidc login method end to end over real HTTP: our identity service as the relying party
// (openid-client), the real user service (providers, just-in-time members), and the organisation
// IdP stand-in. A small cookie jar plays the browser.

class Browser {
  jar = new Map<string, string>();
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const value = pair!.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '')
        this.jar.delete(pair!.slice(0, eq));
      else this.jar.set(pair!.slice(0, eq), value);
    }
    return res;
  }
  /** Follows redirects while they stay below `prefix`es; returns the first URL outside them. */
  async follow(url: string, stayOn: string[], init?: RequestInit): Promise<string> {
    let res = await this.go(url, init);
    let current = url;
    for (let i = 0; i < 10; i++) {
      const location = res.headers.get('location');
      if (!location) return current;
      current = new URL(location, current).toString();
      if (!stayOn.some((p) => current.startsWith(p))) return current;
      res = await this.go(current);
    }
    throw new Error('too many redirects');
  }
}

describe('identity: login with method oidc (organisation single sign-on)', () => {
  let db: Database;
  let idp: OrgIdp;
  let identityPublic: string;
  let identityAdmin: string;
  let usersAdmin: string;
  let globex: string;
  const APP = 'http://localhost:4999';
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await createTestDb();
    const [idPub, idAdm, usPub, usAdm] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    identityPublic = `http://localhost:${idPub}`;
    identityAdmin = `http://localhost:${idAdm}`;
    usersAdmin = `http://localhost:${usAdm}`;
    idp = await startOrgIdp({
      port: 0,
      users: [
        ...ORG_IDP_DEMO_USERS,
        {
          email: 'turing@globex.test',
          password: ORG_IDP_DEMO_PASSWORD,
          givenName: 'Alan',
          familyName: 'Turing',
        },
      ],
      clients: [
        {
          clientId: 'acme-platform',
          clientSecret: 'client-secret-1',
          redirectUris: [`${identityPublic}/self-service/methods/oidc/callback/globex`],
        },
      ],
    });
    closers.push(idp.close);
    const identity = await startIdentity({
      db,
      logger: false,
      mailer: createMemoryMailer(),
      env: {
        IDENTITY_PUBLIC_PORT: String(idPub),
        IDENTITY_ADMIN_PORT: String(idAdm),
        IDENTITY_PUBLIC_URL: identityPublic,
        IDENTITY_ADMIN_URL: identityAdmin,
        IDENTITY_USERS_ADMIN_URL: usersAdmin,
        IDENTITY_LOGIN_UI_URL: `${APP}/account/login`,
        IDENTITY_ERROR_UI_URL: `${APP}/account/error`,
        IDENTITY_DEFAULT_RETURN_URL: `${APP}/`,
        IDENTITY_CORS_ORIGINS: APP,
        IDENTITY_ALLOWED_RETURN_URLS: APP,
        IDENTITY_OIDC_TIMEOUT: '1500ms',
        OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'silent',
      },
    });
    closers.push(identity.close);
    const users = await startUsers({
      db,
      logger: false,
      mailer: createMemoryMailer(),
      env: {
        USERS_PUBLIC_PORT: String(usPub),
        USERS_ADMIN_PORT: String(usAdm),
        IDENTITY_ADMIN_URL: identityAdmin,
        IDENTITY_PUBLIC_URL: identityPublic,
        OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'silent',
      },
    });
    closers.push(users.close);
    const admin = async (method: string, path: string, json?: unknown) => {
      const res = await fetch(`${usersAdmin}${path}`, {
        method,
        headers: json ? { 'content-type': 'application/json' } : {},
        body: json ? JSON.stringify(json) : undefined,
      });
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    };
    globex = (
      await admin('POST', '/admin/organisations', {
        name: 'Globex',
        domains: ['globex.test'],
        products: ['Platform', 'MAGIC'],
      })
    ).body.id;
    const sso = await admin('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex',
      issuer: idp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
    });
    expect(sso.status).toBe(200);
    const hopper = await admin('POST', '/admin/users', {
      organisationId: globex,
      email: 'hopper@globex.test',
      firstName: 'Grace',
      lastName: 'Hopper',
      role: 'member',
    });
    expect(hopper.status).toBe(201);
    (globalThis as any).__usersAdmin = admin;
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await db.close();
  });

  const admin = (method: string, path: string, json?: unknown) =>
    (globalThis as any).__usersAdmin(method, path, json) as Promise<{ status: number; body: any }>;

  /** A new login flow (JSON) and its csrf token. */
  async function newFlow(browser: Browser): Promise<{ id: string; csrf: string; action: string }> {
    const res = await browser.go(`${identityPublic}/self-service/login/browser`, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    const flow = (await res.json()) as any;
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    return { id: flow.id, csrf, action: flow.ui.action };
  }

  /** Posts the hidden SSO form as a browser does; answers the provider's authorize URL. */
  async function submitSso(browser: Browser, flow: { csrf: string; action: string }, provider = 'globex') {
    const res = await browser.go(flow.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: APP },
      body: new URLSearchParams({ method: 'oidc', provider, csrf_token: flow.csrf }),
    });
    expect(res.status).toBe(303);
    return res.headers.get('location')!;
  }

  /** At the provider: sign in (or cancel); answers our callback URL. */
  async function atProvider(
    browser: Browser,
    authorizeUrl: string,
    action: 'login' | 'cancel',
    email: string,
  ) {
    const page = await browser.follow(authorizeUrl, [idp.issuer]);
    expect(page.startsWith(`${idp.issuer}/interaction/`)).toBe(true);
    return browser.follow(`${page}/${action}`, [idp.issuer], {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: ORG_IDP_DEMO_PASSWORD }),
    });
  }

  async function whoami(browser: Browser) {
    const res = await browser.go(`${identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  async function flowMessages(browser: Browser, flowId: string): Promise<string[]> {
    const res = await browser.go(`${identityPublic}/self-service/login/flows?id=${flowId}`, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as any).ui.messages.map((m: any) => m.text);
  }

  async function signIn(email: string) {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const callback = await atProvider(browser, await submitSso(browser, flow), 'login', email);
    const res = await browser.go(callback);
    return { browser, flow, callback, res };
  }

  it('signs a known SSO user in: 303 to the provider, callback, a session with {method: oidc, provider}', async () => {
    const { browser, res } = await signIn('hopper@globex.test');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/`);
    const session = await whoami(browser);
    expect(session.status).toBe(200);
    expect(session.body.identity.traits.email).toBe('hopper@globex.test');
    expect(session.body.authenticator_assurance_level).toBe('aal1');
    expect(session.body.authentication_methods).toEqual([
      expect.objectContaining({ method: 'oidc', provider: 'globex', aal: 'aal1' }),
    ]);
  });

  it('refuses to set up MFA for a session signed in through SSO (server side too)', async () => {
    const { browser } = await signIn('hopper@globex.test');
    const res = await browser.go(`${identityPublic}/self-service/settings/browser`, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    const flow = (await res.json()) as any;
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const submit = await browser.go(flow.ui.action, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: APP },
      body: JSON.stringify({ method: 'totp', totp_code: '123456', csrf_token: csrf }),
    });
    expect(submit.status).toBe(400);
    const body = (await submit.json()) as any;
    expect(body.ui.messages.map((m: any) => m.text)).toEqual(['SSO users cannot set up MFA']);
    const credentials = await db.kysely
      .selectFrom('identity_credentials' as any)
      .select('type' as any)
      .where('identity_id' as any, '=', body.identity.id)
      .execute();
    expect(credentials.map((c: any) => c.type)).not.toContain('totp');
  });

  it('answers a JSON client 422 browser_location_change_required with the provider URL', async () => {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const res = await browser.go(flow.action, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: APP },
      body: JSON.stringify({ method: 'oidc', provider: 'globex', csrf_token: flow.csrf }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.id).toBe('browser_location_change_required');
    const to = new URL(body.redirect_browser_to);
    expect(to.origin).toBe(new URL(idp.issuer).origin);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('client_id')).toBe('acme-platform');
  });

  it('creates the user and a verified identity at a first sign-in (just in time)', async () => {
    const { browser, res } = await signIn('lovelace@globex.test');
    expect(res.status).toBe(303);
    const session = await whoami(browser);
    expect(session.body.identity.traits.email).toBe('lovelace@globex.test');
    expect(session.body.identity.verifiable_addresses[0].verified).toBe(true);
    const users = await admin('GET', `/admin/users?organisationId=${globex}`);
    const lovelace = users.body.users.find((u: any) => u.email === 'lovelace@globex.test');
    expect(lovelace).toMatchObject({
      organisationId: globex,
      role: 'member',
      identityId: session.body.identity.id,
    });
    expect(session.body.identity.traits.userServiceID).toBe(lovelace.id);
    // The second sign-in finds the same identity through its link.
    const again = await signIn('lovelace@globex.test');
    expect((await whoami(again.browser)).body.identity.id).toBe(session.body.identity.id);
  });

  it('refuses a replayed callback on its flow and issues no new session', async () => {
    const { browser, callback, flow } = await signIn('hopper@globex.test');
    const first = (await whoami(browser)).body.id;
    const replay = await browser.go(callback);
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe(`${APP}/account/login?flow=${flow.id}`);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    expect((await whoami(browser)).body.id).toBe(first);
    expect(await flowMessages(browser, flow.id)).toEqual([
      expect.stringContaining('does not belong to this sign-in attempt, or was already used'),
    ]);
    // The refusal is in the security event log (issue 24), with the method, provider and reason.
    const failed = await sql<{ details: Record<string, string> }>`
      select details from identity_security_events
      where type = 'signin.failed' and details->>'method' = 'oidc' and details->>'reason' = 'state_replayed'`.execute(
      db.kysely,
    );
    expect(failed.rows.map((r) => r.details)).toContainEqual({
      method: 'oidc',
      provider: 'globex',
      reason: 'state_replayed',
    });
  });

  it('sends Cancel at the provider (error=access_denied) back to the flow with a message, then signs in on a retry', async () => {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const callback = await atProvider(
      browser,
      await submitSso(browser, flow),
      'cancel',
      'hopper@globex.test',
    );
    expect(new URL(callback).searchParams.get('error')).toBe('access_denied');
    const res = await browser.go(callback);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/account/login?flow=${flow.id}`);
    expect(await flowMessages(browser, flow.id)).toEqual([
      "Sign-in was cancelled at your organisation's identity provider.",
    ]);
    const cancelled = await sql<{ n: number }>`
      select count(*)::int as n from identity_security_events
      where type = 'signin.failed' and details->>'reason' = 'provider_denied'`.execute(db.kysely);
    expect(cancelled.rows[0]!.n).toBeGreaterThanOrEqual(1);
    expect((await whoami(browser)).status).toBe(401);
    // The same flow, again: this time signed in.
    const retry = await atProvider(browser, await submitSso(browser, flow), 'login', 'hopper@globex.test');
    expect((await browser.go(retry)).status).toBe(303);
    expect((await whoami(browser)).status).toBe(200);
  });

  it('refuses a wrong state: the error page, no session', async () => {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const callback = await atProvider(browser, await submitSso(browser, flow), 'login', 'hopper@globex.test');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'not-the-state');
    const res = await browser.go(tampered.toString());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')!.startsWith(`${APP}/account/error?id=`)).toBe(true);
    expect((await whoami(browser)).status).toBe(401);
  });

  it('refuses the callback in another browser than the one that started the sign-in', async () => {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const callback = await atProvider(browser, await submitSso(browser, flow), 'login', 'hopper@globex.test');
    const victim = new Browser();
    const res = await victim.go(callback);
    expect(res.headers.get('location')!.startsWith(`${APP}/account/error?id=`)).toBe(true);
    expect((await whoami(victim)).status).toBe(401);
    // The real browser can still finish: the state was not used up.
    expect((await browser.go(callback)).status).toBe(303);
    expect((await whoami(browser)).status).toBe(200);
  });

  it.each([
    ['an ID token for another audience', { idTokenAudience: 'someone-else' }],
    ['an ID token whose signature does not verify', { wrongJwks: true }],
  ])('refuses %s with a flow message', async (_label, fault) => {
    Object.assign(idp.faults, fault);
    try {
      const browser = new Browser();
      const flow = await newFlow(browser);
      const callback = await atProvider(
        browser,
        await submitSso(browser, flow),
        'login',
        'hopper@globex.test',
      );
      const res = await browser.go(callback);
      expect(res.headers.get('location')).toBe(`${APP}/account/login?flow=${flow.id}`);
      expect(await flowMessages(browser, flow.id)).toEqual([
        expect.stringContaining('could not be verified'),
      ]);
      expect((await whoami(browser)).status).toBe(401);
    } finally {
      delete idp.faults.idTokenAudience;
      delete idp.faults.wrongJwks;
    }
  });

  it('picks up a rotated provider key', async () => {
    await idp.rotateKeys({ dropPrevious: true });
    const { browser, res } = await signIn('hopper@globex.test');
    expect(res.status).toBe(303);
    expect((await whoami(browser)).status).toBe(200);
  });

  it('refuses an unknown provider on the flow, never a 500', async () => {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const location = await submitSso(browser, flow, 'nope');
    expect(location).toBe(`${APP}/account/login?flow=${flow.id}`);
    expect(await flowMessages(browser, flow.id)).toEqual([expect.stringContaining('not configured')]);
  });

  describe('when the provider is unreachable', () => {
    let silent: Server;
    beforeAll(async () => {
      silent = createServer(() => undefined);
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const org = await admin('POST', '/admin/organisations', {
        name: 'Initech',
        domains: ['initech.test'],
        products: [],
      });
      await admin('PUT', `/admin/organisations/${org.body.id}/sso`, {
        provider: 'initech',
        issuer: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        clientId: 'x',
        clientSecret: 'y',
      });
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    });

    it('gives up after the time-out with a flow message', async () => {
      const browser = new Browser();
      const flow = await newFlow(browser);
      const location = await submitSso(browser, flow, 'initech');
      expect(location).toBe(`${APP}/account/login?flow=${flow.id}`);
      expect(await flowMessages(browser, flow.id)).toEqual([expect.stringContaining('could not be reached')]);
    });
  });

  it('refuses a first sign-in with a clear message when just-in-time creation is off', async () => {
    await admin('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex',
      issuer: idp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
      jit: false,
    });
    const { browser, res, flow } = await signIn('turing@globex.test');
    expect(res.headers.get('location')).toBe(`${APP}/account/login?flow=${flow.id}`);
    expect(await flowMessages(browser, flow.id)).toEqual([
      'Your organisation does not create accounts at first sign-in. Ask your administrator to add you.',
    ]);
    expect((await whoami(browser)).status).toBe(401);
    const users = await admin('GET', `/admin/users?organisationId=${globex}`);
    expect(users.body.users.map((u: any) => u.email)).not.toContain('turing@globex.test');
  });

  it("SSO sign-in outside the organisation's trusted networks: refused with 4010091 and no session; inside it signs in", async () => {
    // The user service keeps the list (its console sets it); this identity service trusts no proxy,
    // so the client is the loopback peer.
    const setRanges = (ranges: string[]) =>
      sql`insert into organisation_trusted_networks (organisation_id, ranges, updated_at)
          values (${globex}, ${JSON.stringify(ranges)}::jsonb, now())
          on conflict (organisation_id) do update set ranges = excluded.ranges`.execute(db.kysely);
    try {
      await setRanges(['203.0.113.0/24', '2001:db8::/32']);
      const refused = await signIn('hopper@globex.test');
      expect(refused.res.status).toBe(303);
      expect(refused.res.headers.get('location')).toContain(`flow=${refused.flow.id}`);
      expect((await whoami(refused.browser)).status).toBe(401);
      expect((await flowMessages(refused.browser, refused.flow.id)).join(' ')).toMatch(/trusted networks/);

      await setRanges(['127.0.0.0/8', '::1/128']);
      const inside = await signIn('hopper@globex.test');
      expect(inside.res.headers.get('location')).toBe(`${APP}/`);
      expect((await whoami(inside.browser)).status).toBe(200);
    } finally {
      await setRanges([]);
    }
  });
});
