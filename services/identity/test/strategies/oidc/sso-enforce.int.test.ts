import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { freePort } from '@acme/test-kit/free-port';
import {
  Browser,
  csrfOf,
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

// Issue 20, item 14: an organisation that enforces SSO has no password sign-in and no password
// recovery for its domains (message 4010090, which names SSO), keyed by the typed address's domain
// and never by whether an account exists; one break-glass org-admin may be exempted by the operator.
// The real identity service (the test harness) and the real user service, both admin APIs keyed.

const KEY = 'sso-enforce-admin-key-0123456789-abcdefgh';
const PASSWORD = 'Globex-Password-2026!';
const SSO_ENFORCED = 4010090;
/** The settings flow's notice: why no address, password or passkey is offered. */
const SSO_MANAGED = 4010093;

describe('identity: organisations that enforce SSO have no password sign-in or recovery', () => {
  let db: Database;
  let h: Harness;
  let usersAdmin: string;
  let globex: string;
  let rootId: string;
  const clock = new FakeClock();
  const closers: (() => Promise<void>)[] = [];

  const users = (method: string, path: string, json?: unknown) =>
    adminApi(usersAdmin, KEY)(method, path, json);
  const setProvider = (enforce: boolean) =>
    users('PUT', `/admin/organisations/${globex}/sso`, globexProvider(enforce));
  /** Past the identity service's 30 s cache of a domain's policy. */
  const later = () => clock.advance(31_000);

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
    const org = async (name: string, domain: string) =>
      (await users('POST', '/admin/organisations', { name, domains: [domain], products: ['Platform'] })).body
        .id as string;
    globex = await org('Globex', 'globex.test');
    const acme = await org('Acme', 'acme.test');
    const user = async (organisationId: string, email: string, role: string) => {
      const res = await users('POST', '/admin/users', {
        organisationId,
        email,
        firstName: 'A',
        lastName: 'B',
        role,
        password: PASSWORD,
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    await user(globex, 'member@globex.test', 'member');
    rootId = await user(globex, 'root@globex.test', 'org-admin');
    await user(acme, 'someone@acme.test', 'member');
    expect((await setProvider(false)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await db.close();
  });

  const signIn = (email: string, password = PASSWORD) => login(new Browser(h.publicUrl), email, password);
  const recover = async (email: string) => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<any>(b, 'recovery');
    return submitFlow(b, 'recovery', flow, { method: 'code', email, csrf_token: csrfOf(flow) });
  };

  it('signs a member in with a password while the organisation does not enforce SSO', async () => {
    const res = await signIn('member@globex.test');
    expect(res.status).toBe(200);
    expect(res.body.session.identity.traits.email).toBe('member@globex.test');
  });

  it('a member of an SSO-enforcing organisation can not sign in with a password, even the right one', async () => {
    expect((await setProvider(true)).body.enforce).toBe(true);
    later();
    const res = await signIn('member@globex.test');
    expect(res.status).toBe(400);
    expect(messageIds(res.body)).toEqual([SSO_ENFORCED]);
    expect(res.body.ui.messages[0].text).toContain('single sign-on (SSO)');
    expect(res.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    // Another organisation's members are not touched.
    expect((await signIn('someone@acme.test')).status).toBe(200);
  });

  it('the SSO refusal does not tell whether an account exists: unknown addresses of the domain get the same answer', async () => {
    const known = await signIn('member@globex.test', 'wrong-password-1');
    const unknown = await signIn('nobody@globex.test', 'wrong-password-1');
    expect(unknown.status).toBe(known.status);
    expect(unknown.body.ui.messages).toEqual(known.body.ui.messages);
    expect(messageIds(unknown.body)).toEqual([SSO_ENFORCED]);
  });

  it('a look-alike spelling of an enforced address (case, spaces, full-width letters) is refused as the address is', async () => {
    for (const spelling of [
      '  Member@GLOBEX.test ',
      'member@ｇｌｏｂｅｘ.test',
      'ｍｅｍｂｅｒ@globex.ｔｅｓｔ',
    ]) {
      const res = await signIn(spelling);
      expect(res.status).toBe(400);
      expect(messageIds(res.body)).toEqual([SSO_ENFORCED]);
    }
  });

  it('password recovery for an SSO-enforcing organisation’s address is refused and mails no code, known or not', async () => {
    const before = h.mailbox.length;
    const known = await recover('member@globex.test');
    const unknown = await recover('nobody@globex.test');
    expect(known.status).toBe(400);
    expect(messageIds(known.body)).toEqual([SSO_ENFORCED]);
    expect(unknown.body.ui.messages).toEqual(known.body.ui.messages);
    expect(h.mailbox.length).toBe(before);
    // Another organisation's address still gets its code.
    const other = await recover('someone@acme.test');
    expect(other.status).toBe(200);
    expect(h.mailbox.length).toBe(before + 1);
  });

  it('the break-glass org-admin the operator exempted signs in with a password; no one else does', async () => {
    expect((await signIn('root@globex.test')).status).toBe(400);
    const exempt = await users('PUT', `/admin/organisations/${globex}/sso/break-glass`, { userId: rootId });
    expect(exempt.status).toBe(200);
    later();
    const root = await signIn('root@globex.test');
    expect(root.status).toBe(200);
    expect(messageIds((await signIn('member@globex.test')).body)).toEqual([SSO_ENFORCED]);
    // Cleared: the exemption ends.
    expect((await users('DELETE', `/admin/organisations/${globex}/sso/break-glass`)).status).toBe(200);
    later();
    expect(messageIds((await signIn('root@globex.test')).body)).toEqual([SSO_ENFORCED]);
  });

  it('passkeys of an SSO-enforcing organisation: none can be added, one made before can not sign in; a security key can', async () => {
    const value = (flow: any, name: string) =>
      flow.ui.nodes.find((n: any) => n.attributes.name === name)?.attributes.value as string | undefined;
    const createOptions = (flow: any, name: string) =>
      JSON.parse(value(flow, name)!).credentialOptions.publicKey;
    expect((await setProvider(false)).status).toBe(200);
    later();
    const b = new Browser(h.publicUrl);
    expect((await login(b, 'member@globex.test', PASSWORD)).status).toBe(200);
    const auth = new SoftAuthenticator();
    const before = await startFlow<any>(b, 'settings');
    const added = await submitFlow(b, 'settings', before, {
      method: 'passkey',
      passkey_settings_register: JSON.stringify(auth.create(createOptions(before, 'passkey_create_data'))),
      csrf_token: csrfOf(before),
    });
    expect(added.status, added.text).toBe(200);

    expect((await setProvider(true)).body.enforce).toBe(true);
    later();
    // Signing in with the passkey (which would skip the organisation's provider) is refused.
    const other = new Browser(h.publicUrl);
    const loginFlow = await startFlow<any>(other, 'login');
    const answer = auth.get(JSON.parse(value(loginFlow, 'passkey_challenge')!).publicKey);
    const refused = await submitFlow(other, 'login', loginFlow, {
      method: 'passkey',
      passkey_login: JSON.stringify(answer),
      csrf_token: csrfOf(loginFlow),
    });
    expect(refused.status).toBe(400);
    expect(messageIds(refused.body)).toEqual([SSO_ENFORCED]);
    expect(refused.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    // No new passkey is offered or accepted; a security key (the second factor) is.
    const now = await startFlow<any>(b, 'settings');
    expect(value(now, 'passkey_create_data')).toBeUndefined();
    const again = await submitFlow(b, 'settings', now, {
      method: 'passkey',
      passkey_settings_register: JSON.stringify(
        new SoftAuthenticator().create(createOptions(before, 'passkey_create_data')),
      ),
      csrf_token: csrfOf(now),
    });
    // The refusal, and the flow's notice of why no passkey is offered.
    expect(messageIds(again.body)).toEqual([SSO_ENFORCED, SSO_MANAGED]);
    const key = await submitFlow(b, 'settings', now, {
      method: 'webauthn',
      webauthn_register: JSON.stringify(
        new SoftAuthenticator().create(createOptions(now, 'webauthn_create_data')),
      ),
      csrf_token: csrfOf(now),
    });
    expect(key.status, key.text).toBe(200);
    // Removed again, so the member signs in with a password alone in the tests that follow.
    const removed = await submitFlow(b, 'settings', now, {
      method: 'webauthn',
      webauthn_remove: value(key.body, 'webauthn_remove'),
      csrf_token: csrfOf(now),
    });
    expect(removed.status, removed.text).toBe(200);
  });

  it('turning enforcement off restores password sign-in', async () => {
    expect((await setProvider(false)).body.enforce).toBe(false);
    later();
    expect((await signIn('member@globex.test')).status).toBe(200);
  });
});
