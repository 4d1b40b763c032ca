import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { ORG_IDP_DEMO_PASSWORD, ORG_IDP_DEMO_USERS, startOrgIdp, type OrgIdp } from '@acme/dev';
import { APP, atOrgIdp, SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// The oidc login method end to end over real HTTP: our identity service as the relying party
// (openid-client), the real user service (providers, just-in-time members), and the organisation
// IdP stand-in (the stack of ../../sso-harness.ts). A small cookie jar plays the browser.

describe('identity: login with method oidc (organisation single sign-on)', () => {
  let stack: SsoStack;
  let db: Database;
  let idp: OrgIdp;
  let globex: string;
  const admin = (method: string, path: string, json?: unknown) => stack.users(method, path, json);
  // The identity service reaches the user service through this relay, which can hold each call
  // back: a user service slowed by load, as a busy machine makes it.
  let relay: Server;
  const relayDelay = { ms: 0 };

  beforeAll(async () => {
    const relayPort = await freePort();
    relay = createServer((req, res) => {
      setTimeout(() => {
        if (!stack) return void res.writeHead(503).end();
        const target = new URL(req.url ?? '/', stack.usersAdmin);
        const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.once('error', () => res.destroy());
        req.pipe(upstream);
      }, relayDelay.ms);
    });
    await new Promise<void>((r) => relay.listen(relayPort, '127.0.0.1', r));
    stack = await startSsoStack({
      // Short, so that the unreachable provider below is given up on quickly; not so short that a
      // loaded machine's answer from the reachable one comes too late (1.5 s did once, under CI).
      identityEnv: {
        IDENTITY_OIDC_TIMEOUT: '3000ms',
        USERS_ADMIN_URL: `http://127.0.0.1:${relayPort}`,
      },
      providers: async (identityPublic) => {
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
        return [idp];
      },
    });
    ({ db } = stack);
    globex = await stack.createOrganisation('Globex', 'globex.test', ['MAGIC']);
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
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    relay.closeAllConnections();
    await new Promise<void>((r) => relay.close(() => r()));
  });

  const newFlow = (browser: Browser) => stack.newLoginFlow(browser);
  const submitSso = (browser: Browser, flow: { csrf: string; action: string }, provider = 'globex') =>
    stack.submitSso(browser, flow, provider);
  const whoami = (browser: Browser) => stack.whoami(browser);
  const flowMessages = (browser: Browser, flowId: string) => stack.flowMessages(browser, flowId);

  /** At the provider: sign in (or cancel); answers our callback URL. */
  const atProvider = (browser: Browser, authorizeUrl: string, action: 'login' | 'cancel', email: string) =>
    atOrgIdp(browser, idp.issuer, authorizeUrl, email, action);

  /** A fresh flow whose person signs in (or cancels) at the provider: the callback URL it answers (not yet followed). */
  async function atProviderOnNewFlow(action: 'login' | 'cancel', email: string) {
    const browser = new Browser();
    const flow = await newFlow(browser);
    const callback = await atProvider(browser, await submitSso(browser, flow), action, email);
    return { browser, flow, callback };
  }

  const cancelledAtProvider = () => atProviderOnNewFlow('cancel', 'hopper@globex.test');

  async function signIn(email: string) {
    const walked = await atProviderOnNewFlow('login', email);
    return { ...walked, res: await walked.browser.go(walked.callback) };
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
    const submit = await stack.tryTotpSetUp(browser);
    expect(submit.status).toBe(400);
    const body = submit.body;
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
    const { browser, flow, callback } = await cancelledAtProvider();
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

  it('an OIDC refusal reads in German for a German reader: same id 4000001, English kept as the context reason', async () => {
    const { browser, flow, callback } = await cancelledAtProvider();
    await browser.go(callback);
    const english = "Sign-in was cancelled at your organisation's identity provider.";
    expect(await stack.flowMessagesIn(browser, flow.id, 'de-DE,de;q=0.9')).toEqual([
      {
        id: 4000001,
        text: 'Die Anmeldung wurde beim Identitätsanbieter Ihrer Organisation abgebrochen.',
        type: 'error',
        context: { reason: english },
      },
    ]);
    expect(await stack.flowMessagesIn(browser, flow.id, 'en')).toEqual([
      { id: 4000001, text: english, type: 'error', context: { reason: english } },
    ]);
  });

  it('refuses a wrong state: the error page, no session', async () => {
    const { browser, callback } = await atProviderOnNewFlow('login', 'hopper@globex.test');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'not-the-state');
    const res = await browser.go(tampered.toString());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')!.startsWith(`${APP}/account/error?id=`)).toBe(true);
    expect((await whoami(browser)).status).toBe(401);
  });

  it('refuses the callback in another browser than the one that started the sign-in', async () => {
    const { browser, callback } = await atProviderOnNewFlow('login', 'hopper@globex.test');
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
      const { browser, flow, res } = await signIn('hopper@globex.test');
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

  it("a user service slower than the provider's time-out still signs the person in (its calls have their own time-out)", async () => {
    // 3.1 s per call to the user service: more than IDENTITY_OIDC_TIMEOUT (3 s), which is the
    // organisation's provider's time-out and not the user service's.
    relayDelay.ms = 3100;
    try {
      const { browser, res } = await signIn('hopper@globex.test');
      expect(res.headers.get('location')).toBe(`${APP}/`);
      expect((await whoami(browser)).status).toBe(200);
    } finally {
      relayDelay.ms = 0;
    }
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

  it("the user service's refusal of a member (no sign-up at first sign-in) reads in German for a German reader, same id", async () => {
    await admin('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex',
      issuer: idp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
      jit: false,
    });
    const { browser, flow } = await signIn('turing@globex.test');
    const english =
      'Your organisation does not create accounts at first sign-in. Ask your administrator to add you.';
    expect(await stack.flowMessagesIn(browser, flow.id, 'de')).toEqual([
      {
        id: 4000001,
        text: 'Ihre Organisation legt bei der ersten Anmeldung keine Konten an. Bitten Sie Ihren Administrator, Sie hinzuzufügen.',
        type: 'error',
        context: { reason: english },
      },
    ]);
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
