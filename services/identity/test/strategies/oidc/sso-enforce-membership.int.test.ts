import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { freePort } from '@acme/test-kit/free-port';
import {
  Browser,
  csrfOf,
  lastCode,
  login,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';
import { adminApi, globexProvider, startUsersService } from '../../sso-harness.ts';
import { SoftAuthenticator } from '../passkey/soft-authenticator.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 31, item 4: SSO enforcement is decided by the organisation a person belongs to, not by the
// address they type or could change. A member of an enforcing organisation who moved their address
// to another domain (before enforcement, or by any other way) has no way in but the provider: no
// password or passkey sign-in, no new password, passkey or address, and no tokens from a session
// the provider did not sign in. The break-glass org-admin the operator named still can.
// The real identity service (the test harness) and the real user service, both admin APIs keyed.

const KEY = 'sso-membership-admin-key-0123456789-abcdef';
const PASSWORD = 'Globex-Password-2026!';
const NEW_PASSWORD = 'An0ther long passphrase!';
const SSO_ENFORCED = 4010090;
const SSO_MANAGED = 4010093;
const ADDRESS_NOT_VERIFIED = 4000010;

describe('identity: SSO enforcement follows the organisation, whatever the address', () => {
  let db: Database;
  let h: Harness;
  let usersAdmin: string;
  let globex = '';
  let rootId = '';
  const clock = new FakeClock();
  const closers: (() => Promise<void>)[] = [];
  /** The member's browser, signed in with a password before the organisation enforced SSO. */
  const member = {
    browser: undefined as unknown as Browser,
    auth: new SoftAuthenticator(),
    passkeyOptions: undefined as string | undefined,
  };
  const root = { browser: undefined as unknown as Browser };

  const users = (method: string, path: string, json?: unknown) =>
    adminApi(usersAdmin, KEY)(method, path, json);
  const setProvider = (enforce: boolean) =>
    users('PUT', `/admin/organisations/${globex}/sso`, globexProvider(enforce));
  /** Past the identity service's 30 s cache of a domain's policy. */
  const later = () => clock.advance(31_000);
  const value = (flow: any, name: string) =>
    flow.ui.nodes.find((n: any) => n.attributes.name === name)?.attributes.value as string | undefined;
  const settings = async (b: Browser) => startFlow<any>(b, 'settings');
  const changeAddress = async (b: Browser, email: string) => {
    const flow = await settings(b);
    return submitFlow(b, 'settings', flow, {
      method: 'profile',
      traits: { ...flow.identity.traits, email },
      csrf_token: csrfOf(flow),
    });
  };
  const setPassword = async (b: Browser, password: string) => {
    const flow = await settings(b);
    return submitFlow(b, 'settings', flow, { method: 'password', password, csrf_token: csrfOf(flow) });
  };
  const addPasskey = async (b: Browser, auth: SoftAuthenticator) => {
    const flow = await settings(b);
    // The options come from the flow when offered; otherwise from the member's flow made before.
    const options = value(flow, 'passkey_create_data') ?? member.passkeyOptions;
    return submitFlow(b, 'settings', flow, {
      method: 'passkey',
      passkey_settings_register: JSON.stringify(
        auth.create(JSON.parse(options!).credentialOptions.publicKey),
      ),
      csrf_token: csrfOf(flow),
    });
  };
  const passkeyLogin = async (auth: SoftAuthenticator) => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<any>(b, 'login');
    const answer = auth.get(JSON.parse(value(flow, 'passkey_challenge')!).publicKey);
    return submitFlow(b, 'login', flow, {
      method: 'passkey',
      passkey_login: JSON.stringify(answer),
      csrf_token: csrfOf(flow),
    });
  };
  /** Every error message id of a flow: its own and its nodes' (the settings flow's notice is info). */
  const allMessageIds = (flow: any): number[] =>
    [...(flow.ui.messages ?? []), ...flow.ui.nodes.flatMap((n: any) => n.messages ?? [])]
      .filter((m: any) => m.type === 'error')
      .map((m: any) => m.id as number);
  const signIn = (email: string, password: string) => login(new Browser(h.publicUrl), email, password);
  const hasSession = (res: { setCookies: string[] }) =>
    res.setCookies.some((c) => c.startsWith('ory_kratos_session='));
  /** The user service's token claims for the browser's session, as the authorization server asks at sign-in. */
  const claimsFor = async (b: Browser) => {
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.status).toBe(200);
    return users('POST', '/admin/token-claims', {
      identitySessionId: who.body.id,
      subject: who.body.identity.id,
      purpose: 'refresh',
    });
  };

  beforeAll(async () => {
    db = await createTestDb();
    const [usPub, usAdm] = await Promise.all([freePort(), freePort()]);
    usersAdmin = `http://localhost:${usAdm}`;
    h = await startHarness({ USERS_ADMIN_URL: usersAdmin, USERS_ADMIN_KEY: KEY }, { db, clock });
    closers.push(h.close);
    const service = await startUsersService({
      db,
      ports: [usPub, usAdm],
      identityAdmin: h.adminUrl,
      identityPublic: h.publicUrl,
      env: { USERS_ADMIN_KEY: KEY },
    });
    closers.push(service.close);
    globex = (
      await users('POST', '/admin/organisations', {
        name: 'Globex',
        domains: ['globex.test'],
        products: ['Platform'],
      })
    ).body.id;
    for (const [email, role] of [
      ['member@globex.test', 'member'],
      ['root@globex.test', 'org-admin'],
    ] as const) {
      const res = await users('POST', '/admin/users', {
        organisationId: globex,
        email,
        firstName: 'A',
        lastName: 'B',
        role,
        password: PASSWORD,
      });
      expect(res.status).toBe(201);
      if (role === 'org-admin') rootId = res.body.id;
    }
    expect((await setProvider(false)).status).toBe(200);

    // Before enforcement: the member signs in, keeps a passkey's options for later, and moves their
    // address to another domain (allowed while the organisation does not enforce SSO).
    member.browser = new Browser(h.publicUrl);
    expect((await login(member.browser, 'member@globex.test', PASSWORD)).status).toBe(200);
    member.passkeyOptions = value(await settings(member.browser), 'passkey_create_data');
    const moved = await changeAddress(member.browser, 'member@elsewhere.test');
    expect(moved.status, moved.text).toBe(200);
    root.browser = new Browser(h.publicUrl);
    expect((await login(root.browser, 'root@globex.test', PASSWORD)).status).toBe(200);

    expect((await setProvider(true)).body.enforce).toBe(true);
    later();
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await db.close();
  });

  it('a member of an enforcing organisation who changes their address still cannot sign in with a password', async () => {
    const res = await signIn('member@elsewhere.test', PASSWORD);
    expect(res.status).toBe(400);
    expect(messageIds(res.body)).toEqual([SSO_ENFORCED]);
    expect(hasSession(res)).toBe(false);
    // A wrong password says nothing about SSO: the refusal comes only after the password proved who signs in.
    const wrong = await signIn('member@elsewhere.test', 'not-the-password-1');
    expect(messageIds(wrong.body)).not.toContain(SSO_ENFORCED);
  });

  it('a member of an enforcing organisation cannot add a password or passkey, nor change their address again', async () => {
    const password = await setPassword(member.browser, NEW_PASSWORD);
    expect(password.status).toBe(400);
    expect(allMessageIds(password.body)).toEqual([SSO_ENFORCED]);
    const flow = await settings(member.browser);
    // No passkey is offered, and one sent anyway is refused.
    expect(value(flow, 'passkey_create_data')).toBeUndefined();
    const passkey = await addPasskey(member.browser, member.auth);
    expect(passkey.status).toBe(400);
    expect(allMessageIds(passkey.body)).toEqual([SSO_ENFORCED]);
    expect((await passkeyLogin(member.auth)).status).toBe(400);
    const address = await changeAddress(member.browser, 'member@third.test');
    expect(address.status).toBe(400);
    expect(allMessageIds(address.body)).toEqual([SSO_ENFORCED]);
    const who = await member.browser.get('/sessions/whoami', { accept: 'json' });
    expect(who.body.identity.traits.email).toBe('member@elsewhere.test');
    // No new password was stored: it is simply a wrong password.
    const unset = await signIn('member@elsewhere.test', NEW_PASSWORD);
    expect(unset.status).toBe(400);
    expect(messageIds(unset.body)).toEqual([4000006]);
  });

  it('a member of an enforcing organisation who changes their address still cannot recover a session by mail', async () => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<any>(b, 'recovery');
    const sent = await submitFlow(b, 'recovery', flow, {
      method: 'code',
      email: 'member@elsewhere.test',
      csrf_token: csrfOf(flow),
    });
    expect(sent.status).toBe(200);
    const res = await submitFlow(b, 'recovery', sent.body, {
      method: 'code',
      code: lastCode(h, 'member@elsewhere.test'),
      csrf_token: csrfOf(sent.body),
    });
    expect(res.status).toBe(400);
    expect(messageIds(res.body)).toEqual([SSO_ENFORCED]);
    expect(hasSession(res)).toBe(false);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('a session an enforcing organisation’s provider did not sign in gets no tokens (SSO_REQUIRED)', async () => {
    // The member whose address left the domain gets nothing either (that address is not proven yet).
    expect((await claimsFor(member.browser)).status).toBe(403);
    // The org-admin's password session (address proven, not the break-glass admin yet).
    const refused = await claimsFor(root.browser);
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('SSO_REQUIRED');
    // The organisation stops enforcing: the same session gets its claims again.
    expect((await setProvider(false)).status).toBe(200);
    expect((await claimsFor(root.browser)).status).toBe(200);
    expect((await setProvider(true)).body.enforce).toBe(true);
    later();
  });

  it('break-glass admin still can: password sign-in and tokens, a new password, a passkey, a new address', async () => {
    expect(messageIds((await signIn('root@globex.test', PASSWORD)).body)).toEqual([SSO_ENFORCED]);
    expect((await claimsFor(root.browser)).body.errorCode).toBe('SSO_REQUIRED');
    const exempt = await users('PUT', `/admin/organisations/${globex}/sso/break-glass`, { userId: rootId });
    expect(exempt.status).toBe(200);
    later();
    expect((await claimsFor(root.browser)).status).toBe(200);
    const password = await setPassword(root.browser, NEW_PASSWORD);
    expect(password.status, password.text).toBe(200);
    const withPassword = await signIn('root@globex.test', NEW_PASSWORD);
    expect(withPassword.status).toBe(200);
    expect(hasSession(withPassword)).toBe(true);
    const auth = new SoftAuthenticator();
    const passkey = await addPasskey(root.browser, auth);
    expect(passkey.status, passkey.text).toBe(200);
    expect((await passkeyLogin(auth)).status).toBe(200);
    const address = await changeAddress(root.browser, 'root@elsewhere.test');
    expect(address.status, address.text).toBe(200);
    // A new address signs in once the code mailed to it proved it, for the break-glass admin too.
    const res = await signIn('root@elsewhere.test', NEW_PASSWORD);
    expect(res.status).toBe(400);
    expect(messageIds(res.body)).toEqual([ADDRESS_NOT_VERIFIED]);
    expect(hasSession(res)).toBe(false);
  });

  it('a member of an enforcing organisation is not offered a password, a passkey or a new address in settings, and the flow says why; the break-glass admin is offered all', async () => {
    /** What a settings flow offers: the password input, passkey registration, the address input, the SSO notice. */
    const offers = (flow: any) => {
      const node = (name: string) => flow.ui.nodes.find((n: any) => n.attributes.name === name);
      return {
        password: node('password') !== undefined,
        passwordGroup: flow.ui.nodes.some((n: any) => n.group === 'password'),
        passkey: node('passkey_create_data') !== undefined,
        addressEditable: node('traits.email')?.attributes.disabled === false,
        notice: (flow.ui.messages ?? [])
          .filter((m: any) => m.id === SSO_MANAGED)
          .map((m: any) => m.type as string),
      };
    };
    const managed = { password: false, passwordGroup: false, passkey: false, addressEditable: false };
    const flow = await settings(member.browser);
    expect(offers(flow)).toEqual({ ...managed, notice: ['info'] });
    // The same flow fetched again, after a refused submit and after a saved name: still nothing offered, still said why.
    const fetched = await member.browser.get(`/self-service/settings/flows?id=${flow.id}`, {
      accept: 'json',
    });
    expect(fetched.status).toBe(200);
    expect(offers(fetched.body)).toEqual({ ...managed, notice: ['info'] });
    const refused = await submitFlow(member.browser, 'settings', flow, {
      method: 'password',
      password: NEW_PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(refused.status).toBe(400);
    expect(offers(refused.body)).toEqual({ ...managed, notice: ['info'] });
    const renamed = await submitFlow(member.browser, 'settings', flow, {
      method: 'profile',
      traits: { ...flow.identity.traits, name: { first: 'Renamed', last: 'Member' } },
      csrf_token: csrfOf(flow),
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.identity.traits.name.first).toBe('Renamed');
    expect(offers(renamed.body)).toEqual({ ...managed, notice: ['info'] });
    // The break-glass admin is offered every control, and no notice.
    const exempt = await users('PUT', `/admin/organisations/${globex}/sso/break-glass`, { userId: rootId });
    expect(exempt.status).toBe(200);
    later();
    expect(offers(await settings(root.browser))).toEqual({
      password: true,
      passwordGroup: true,
      passkey: true,
      addressEditable: true,
      notice: [],
    });
  });
});
