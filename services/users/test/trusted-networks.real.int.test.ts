import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformAuthorizeUrl } from './auth-stack.ts';
import { Jar } from './jar.ts';
import {
  DEVICE_GRANT,
  deviceAuthorization,
  exchangeCode,
  passwordLogin,
  postDeviceVerification,
  startRealStack,
  tokenRequest as postToken,
  whoami,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Trusted networks (issue 24) end to end: the real identity service, user service and
 * authorization server on one database, each behind one trusted proxy hop (`*TRUST_PROXY=1`), so
 * a request's client address is the right-most `X-Forwarded-For` entry, as the load balancer
 * writes it. The organisation's members are refused outside its ranges at the password sign-in
 * (identity engine), the refresh, the device code's exchange and the API client's token request.
 */

const APP_ORIGIN = 'http://localhost:4000';
const PASSWORD = 'Research-Demo-2026!';
const OFFICE = '198.51.100.0/24';
const OFFICE_V6 = '2001:db8:40::/48';
const INSIDE = '198.51.100.20';
const OUTSIDE = '203.0.113.9';

/** A browser behind the load balancer: every request reaches the services with its address appended. */
class BrowserAt extends Jar {
  readonly address: string;
  /** What the browser itself wrote into X-Forwarded-For (a spoof), before the proxy appended. */
  readonly spoofed: string | undefined;
  constructor(address: string, spoofed?: string) {
    super(APP_ORIGIN);
    this.address = address;
    this.spoofed = spoofed;
  }
  override fetch(url: string, init: RequestInit & { json?: unknown } = {}) {
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-for', this.spoofed ? `${this.spoofed}, ${this.address}` : this.address);
    return super.fetch(url, { ...init, headers });
  }
}

describe('trusted networks: members are refused outside their organisation’s ranges', () => {
  let stack: RealStack;
  let urls: RealStackUrls;
  let organisationId = '';
  let otherOrganisationId = '';
  let adminToken = '';
  let seq = 0;

  beforeAll(async () => {
    stack = await startRealStack({
      appOrigin: APP_ORIGIN,
      oauth2Env: { TRUST_PROXY: '1' },
      identityEnv: (usersAdminUrl) => ({
        TRUST_PROXY: '1',
        USERS_ADMIN_URL: usersAdminUrl,
      }),
      usersEnv: { TRUST_PROXY: '1' },
    });
    urls = stack.urls;
    organisationId = await newOrganisation('nets.test');
    otherOrganisationId = await newOrganisation('elsewhere.test');
    const admin = await newUser(organisationId, 'nets.test', 'org-admin');
    const patched = await new Jar().fetch(`${urls.usersAdmin}/admin/users/${admin.id}`, {
      method: 'PATCH',
      json: { scopeGroups: ['research'] },
    });
    expect(patched.res.status).toBe(200);
    adminToken = await tokenFor(admin.identityId);
  }, 60_000);
  afterAll(async () => {
    await stack.close();
  });

  async function newOrganisation(domain: string): Promise<string> {
    const org = await new Jar().fetch(`${urls.usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: { name: `Org ${domain}`, domains: [domain], products: ['Platform'] },
    });
    expect(org.res.status).toBe(201);
    return org.body.id;
  }

  async function newUser(orgId: string, domain: string, role = 'member') {
    seq += 1;
    const created = await new Jar().fetch(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: `net-${seq}@${domain}`,
        firstName: 'Net',
        lastName: `Tester${seq}`,
        role,
        password: PASSWORD,
      },
    });
    expect(created.res.status).toBe(201);
    return created.body as { id: string; email: string; identityId: string };
  }

  async function tokenFor(identityId: string): Promise<string> {
    const res = await fetch(`${urls.oauth2Admin}/admin/oauth2/federated-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: identityId, client_id: 'platform', session: { access_token: {} } }),
    });
    return ((await res.json()) as any).access_token;
  }

  /** The org-admin sets the ranges from inside the office (so no lock-out confirmation is needed). */
  async function setRanges(ranges: string[], orgId = organisationId) {
    const res = await new BrowserAt(INSIDE).fetch(
      `${urls.users}/console/organisations/${orgId}/trusted-networks`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}` },
        json: { ranges, confirmLockout: true },
      },
    );
    expect(res.res.status).toBe(200);
  }

  /** Authorize → password login at the identity service → (consent skipped) → tokens, from `browser`. */
  async function signIn(browser: BrowserAt, email: string) {
    const { url: authorizeUrl, verifier } = platformAuthorizeUrl(urls.issuer, APP_ORIGIN);
    const login = await browser.navigateToApp(authorizeUrl);
    const challenge = login.searchParams.get('login_challenge')!;
    const submitted = await passwordLogin(browser, urls.identityPublic, challenge, email, PASSWORD);
    if (submitted.res.status !== 422) return { submitted, tokens: undefined };
    const callback = await browser.navigateToApp(submitted.body.redirect_browser_to);
    const token = await exchangeCode(urls.issuer, callback, verifier, browser);
    expect(token.status).toBe(200);
    return { submitted, tokens: token.body as { access_token: string; refresh_token: string } };
  }

  const tokenRequest = (browser: BrowserAt, form: Record<string, string>, authorization?: string) =>
    postToken(urls.issuer, form, browser, authorization);

  const messageIds = (body: any): number[] => (body?.ui?.messages ?? []).map((m: any) => m.id);

  it('password sign-in: refused outside the ranges with the trusted-networks message and no session; allowed inside', async () => {
    const member = await newUser(organisationId, 'nets.test');
    await setRanges([OFFICE, OFFICE_V6]);

    const outside = new BrowserAt(OUTSIDE);
    const refused = await signIn(outside, member.email);
    expect(refused.submitted.res.status).toBe(400);
    expect(messageIds(refused.submitted.body)).toContain(4010091);
    expect(refused.submitted.body.ui.messages[0].text).toMatch(/trusted networks/);
    const whoami = await outside.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.res.status).toBe(401);

    const inside = await signIn(new BrowserAt(INSIDE), member.email);
    expect(inside.tokens?.access_token).toBeTruthy();
  });

  it('IPv6: an address inside the IPv6 range signs in, one outside it is refused', async () => {
    const member = await newUser(organisationId, 'nets.test');
    await setRanges([OFFICE, OFFICE_V6]);
    expect((await signIn(new BrowserAt('2001:db8:40:7::1'), member.email)).tokens).toBeDefined();
    const refused = await signIn(new BrowserAt('2001:db8:41::1'), member.email);
    expect(messageIds(refused.submitted.body)).toContain(4010091);
  });

  it('spoofed X-Forwarded-For: an office address the client writes itself does not pass', async () => {
    const member = await newUser(organisationId, 'nets.test');
    await setRanges([OFFICE]);
    // The client claims the office address; the load balancer appends the real one (outside).
    const spoofer = new BrowserAt(OUTSIDE, INSIDE);
    const refused = await signIn(spoofer, member.email);
    expect(refused.submitted.res.status).toBe(400);
    expect(messageIds(refused.submitted.body)).toContain(4010091);
    expect(refused.tokens).toBeUndefined();
  });

  it('another organisation’s ranges do not apply: its members sign in from anywhere', async () => {
    const outsider = await newUser(otherOrganisationId, 'elsewhere.test');
    await setRanges([OFFICE]);
    expect((await signIn(new BrowserAt(OUTSIDE), outsider.email)).tokens).toBeDefined();
  });

  it('token refresh: refused outside the ranges (invalid_grant) with the grant kept; allowed inside', async () => {
    const member = await newUser(organisationId, 'nets.test');
    await setRanges([OFFICE]);
    const { tokens } = await signIn(new BrowserAt(INSIDE), member.email);
    const form = { grant_type: 'refresh_token', refresh_token: tokens!.refresh_token, client_id: 'platform' };

    const outside = await tokenRequest(new BrowserAt(OUTSIDE), form);
    expect(outside.status).toBe(400);
    expect(outside.body.error).toBe('invalid_grant');
    expect(outside.body.error_description).toMatch(/trusted networks/);

    const spoofed = await tokenRequest(new BrowserAt(OUTSIDE, INSIDE), form);
    expect(spoofed.body.error).toBe('invalid_grant');

    const inside = await tokenRequest(new BrowserAt(INSIDE), form);
    expect(inside.status).toBe(200);
    expect(inside.body.access_token).toBeTruthy();
  });

  it('a device outside the trusted network cannot exchange its code for tokens, though the person approved inside', async () => {
    const member = await newUser(organisationId, 'nets.test');
    await setRanges([OFFICE]);
    const device = await deviceAuthorization(urls.issuer);
    // The person enters the code and approves in a browser inside the office.
    const browser = new BrowserAt(INSIDE);
    const page = await browser.navigateToApp(`${urls.issuer}/oauth2/device/verify`);
    const verified = await browser.fetch(`${urls.users}/login/device/verify`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN },
      json: { deviceChallenge: page.searchParams.get('device_challenge'), userCode: device.user_code },
    });
    expect(verified.res.status).toBe(200);
    const posted = await postDeviceVerification(browser, urls.issuer, verified.body.redirectTo);
    const login = await browser.navigateToApp(posted.res.headers.get('location')!);
    const submitted = await passwordLogin(
      browser,
      urls.identityPublic,
      login.searchParams.get('login_challenge')!,
      member.email,
      PASSWORD,
    );
    expect(submitted.res.status).toBe(422);
    const session = await whoami(browser, urls.identityPublic);
    const consent = await browser.navigateToApp(submitted.body.redirect_browser_to);
    const approved = await browser.fetch(`${urls.users}/login/consent`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN },
      json: {
        consentChallenge: consent.searchParams.get('consent_challenge'),
        identitySessionId: session.body.id,
        // The device page's Approve: a device client's consent is the person's answer there.
        decision: 'allow',
      },
    });
    expect(approved.res.status).toBe(200);
    expect((await browser.navigateToApp(approved.body.redirectTo)).searchParams.get('status')).toBe(
      'approved',
    );

    const poll = (from: BrowserAt) =>
      tokenRequest(from, {
        grant_type: DEVICE_GRANT,
        device_code: device.device_code,
        client_id: 'research-cli',
      });
    for (const outside of [new BrowserAt(OUTSIDE), new BrowserAt(OUTSIDE, INSIDE)]) {
      const refused = await poll(outside);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');
      expect(refused.body.error_description).toMatch(/trusted networks/);
      expect(refused.body.access_token).toBeUndefined();
      expect(refused.body.refresh_token).toBeUndefined();
    }
    // Nothing was spent: from inside the device gets its tokens.
    const inside = await poll(new BrowserAt(INSIDE));
    expect(inside.status).toBe(200);
    expect(inside.body.refresh_token).toBeTruthy();
  });

  it("API clients' client-credentials token requests: refused outside (unauthorized_client), allowed inside", async () => {
    await setRanges([]);
    const created = await new BrowserAt(INSIDE).fetch(
      `${urls.users}/console/organisations/${organisationId}/api-clients`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}` },
        json: { name: 'nightly export', scopeGroups: ['research'] },
      },
    );
    expect(created.res.status).toBe(201);
    const basic = `Basic ${Buffer.from(`${created.body.id}:${created.body.clientSecret}`).toString('base64')}`;
    const request = (browser: BrowserAt) =>
      tokenRequest(browser, { grant_type: 'client_credentials' }, basic);
    expect((await request(new BrowserAt(OUTSIDE))).status).toBe(200);

    await setRanges([OFFICE]);
    const outside = await request(new BrowserAt(OUTSIDE));
    expect(outside.status).toBe(400);
    expect(outside.body.error).toBe('unauthorized_client');
    expect(outside.body.error_description).toMatch(/trusted networks/);
    expect((await request(new BrowserAt(OUTSIDE, INSIDE))).body.error).toBe('unauthorized_client');
    expect((await request(new BrowserAt(INSIDE))).status).toBe(200);
  });
});
