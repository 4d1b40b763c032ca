import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { ORG_IDP_DEMO_PASSWORD, orgIdpSubject, startOrgIdp, type OrgIdp } from '@acme/dev';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '@acme/users';
import { start as startIdentity } from '../../../src/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 20, items 4 and 11: an SSO link is keyed by the provider's record (organisation + issuer),
// dies with the provider, and never joins an identity of another organisation; and the identity
// service's calls to the user service carry USERS_ADMIN_KEY. Real identity and user services (both
// admin APIs require keys), two organisation IdP stand-ins, a small cookie jar as the browser.

const KEY = 'sso-links-admin-key-0123456789-abcdefghij';

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

describe('identity: SSO links belong to the provider record that made them', () => {
  let db: Database;
  let globexIdp: OrgIdp;
  let initechIdp: OrgIdp;
  let identityPublic: string;
  let usersAdmin: string;
  let identityAdmin: string;
  let globex: string;
  let initech: string;
  const clock = new FakeClock();
  const APP = 'http://localhost:4999';
  const closers: (() => Promise<void>)[] = [];

  const admin = async (base: string, method: string, path: string, json?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(json ? { 'content-type': 'application/json' } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const users = (method: string, path: string, json?: unknown) => admin(usersAdmin, method, path, json);

  beforeAll(async () => {
    db = await createTestDb();
    const [idPub, idAdm, usPub, usAdm] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    identityPublic = `http://localhost:${idPub}`;
    identityAdmin = `http://localhost:${idAdm}`;
    usersAdmin = `http://localhost:${usAdm}`;
    const callback = `${identityPublic}/self-service/methods/oidc/callback/globex`;
    globexIdp = await startOrgIdp({
      port: 0,
      users: [
        {
          email: 'hopper@globex.test',
          password: ORG_IDP_DEMO_PASSWORD,
          givenName: 'Grace',
          familyName: 'Hopper',
        },
      ],
      clients: [{ clientId: 'acme-platform', clientSecret: 'client-secret-1', redirectUris: [callback] }],
    });
    closers.push(globexIdp.close);
    // Another organisation's IdP: it says whatever it likes, including Hopper's subject at Globex's IdP.
    initechIdp = await startOrgIdp({
      port: 0,
      users: [
        {
          email: 'mallory@initech.test',
          password: ORG_IDP_DEMO_PASSWORD,
          givenName: 'Mallory',
          familyName: 'Initech',
          subject: orgIdpSubject('hopper@globex.test'),
        },
        { email: 'dinesh@hooli.test', password: ORG_IDP_DEMO_PASSWORD, givenName: 'Dinesh', familyName: 'C' },
      ],
      clients: [
        {
          clientId: 'acme-platform',
          clientSecret: 'client-secret-2',
          redirectUris: [callback, `${identityPublic}/self-service/methods/oidc/callback/initech`],
        },
      ],
    });
    closers.push(initechIdp.close);
    const identity = await startIdentity({
      db,
      clock,
      logger: false,
      mailer: createMemoryMailer(),
      env: {
        IDENTITY_PUBLIC_PORT: String(idPub),
        IDENTITY_ADMIN_PORT: String(idAdm),
        IDENTITY_PUBLIC_URL: identityPublic,
        IDENTITY_ADMIN_URL: identityAdmin,
        IDENTITY_ADMIN_KEY: KEY,
        IDENTITY_USERS_ADMIN_URL: usersAdmin,
        USERS_ADMIN_KEY: KEY,
        IDENTITY_LOGIN_UI_URL: `${APP}/account/login`,
        IDENTITY_ERROR_UI_URL: `${APP}/account/error`,
        IDENTITY_DEFAULT_RETURN_URL: `${APP}/`,
        IDENTITY_CORS_ORIGINS: APP,
        IDENTITY_ALLOWED_RETURN_URLS: APP,
        OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'silent',
      },
    });
    closers.push(identity.close);
    const usersService = await startUsers({
      db,
      logger: false,
      mailer: createMemoryMailer(),
      env: {
        USERS_PUBLIC_PORT: String(usPub),
        USERS_ADMIN_PORT: String(usAdm),
        USERS_ADMIN_KEY: KEY,
        IDENTITY_ADMIN_URL: identityAdmin,
        IDENTITY_ADMIN_KEY: KEY,
        IDENTITY_PUBLIC_URL: identityPublic,
        OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'silent',
      },
    });
    closers.push(usersService.close);
    globex = (
      await users('POST', '/admin/organisations', {
        name: 'Globex',
        domains: ['globex.test'],
        products: ['Platform'],
      })
    ).body.id;
    initech = (
      await users('POST', '/admin/organisations', {
        name: 'Initech',
        domains: ['initech.test'],
        products: ['Platform'],
      })
    ).body.id;
    const set = await users('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex',
      issuer: globexIdp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
    });
    expect(set.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await db.close();
  });

  async function signIn(idp: OrgIdp, email: string, provider = 'globex') {
    const browser = new Browser();
    const res = await browser.go(`${identityPublic}/self-service/login/browser`, {
      headers: { accept: 'application/json' },
    });
    const flow = (await res.json()) as any;
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const submit = await browser.go(flow.ui.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: APP },
      body: new URLSearchParams({ method: 'oidc', provider, csrf_token: csrf }),
    });
    expect(submit.status).toBe(303);
    const page = await browser.follow(submit.headers.get('location')!, [idp.issuer]);
    expect(page).toMatch(new RegExp(`^${idp.issuer}/interaction/`));
    const callback = await browser.follow(`${page}/login`, [idp.issuer], {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: ORG_IDP_DEMO_PASSWORD }),
    });
    await browser.go(callback);
    const whoami = await browser.go(`${identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    const messages = await browser.go(`${identityPublic}/self-service/login/flows?id=${flow.id}`, {
      headers: { accept: 'application/json' },
    });
    return {
      session: whoami.status === 200 ? ((await whoami.json()) as any) : undefined,
      messages: (((await messages.json()) as any).ui?.messages ?? []).map((m: any) => m.text) as string[],
    };
  }

  const oidcIdentifiers = async (identityId: string) =>
    (
      await db.kysely
        .selectFrom('identity_credential_identifiers' as any)
        .select('identifier' as any)
        .where('identity_id' as any, '=', identityId)
        .where('type' as any, '=', 'oidc')
        .execute()
    ).map((r: any) => r.identifier as string);

  it('keeps SSO working when the user service admin API requires USERS_ADMIN_KEY: the identity service sends it', async () => {
    // The user service refuses a caller without the key …
    expect((await fetch(`${usersAdmin}/admin/sso/providers/globex`)).status).toBe(401);
    // … and the identity service's calls (provider, just-in-time member) carry it.
    const { session } = await signIn(globexIdp, 'hopper@globex.test');
    expect(session?.identity.traits.email).toBe('hopper@globex.test');
    expect(await oidcIdentifiers(session.identity.id)).toEqual([
      `${globex}:${globexIdp.issuer}#${orgIdpSubject('hopper@globex.test')}`,
    ]);
  });

  it('a freed provider id taken by another organisation can not sign in as the first organisation’s people', async () => {
    const hopper = (await signIn(globexIdp, 'hopper@globex.test')).session.identity.id as string;
    // Globex removes its provider: Hopper's link goes with it.
    expect((await users('DELETE', `/admin/organisations/${globex}/sso`)).status).toBe(204);
    // Initech takes the freed id `globex` for its own IdP, which claims Hopper's subject.
    const taken = await users('PUT', `/admin/organisations/${initech}/sso`, {
      provider: 'globex',
      issuer: initechIdp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-2',
    });
    expect(taken.status).toBe(200);
    clock.advance(31_000); // past the identity service's 30 s provider cache
    const { session } = await signIn(initechIdp, 'mallory@initech.test');
    expect(session).toBeDefined();
    expect(session.identity.id).not.toBe(hopper);
    expect(session.identity.traits.email).toBe('mallory@initech.test');
    expect(await oidcIdentifiers(hopper)).toEqual([]);
  });

  it('a provider can not link an identity of another organisation that has the same verified address', async () => {
    // Hooli's member Dinesh; then hooli.test moves to Initech (whose IdP speaks for it from then on).
    const hooli = (
      await users('POST', '/admin/organisations', {
        name: 'Hooli',
        domains: ['hooli.test'],
        products: ['Platform'],
      })
    ).body.id;
    const dinesh = await users('POST', '/admin/users', {
      organisationId: hooli,
      email: 'dinesh@hooli.test',
      firstName: 'Dinesh',
      lastName: 'C',
      role: 'org-admin',
      password: 'Hooli-Password-2026!',
    });
    expect(dinesh.status).toBe(201);
    await db.kysely
      .updateTable('organisation_domains' as any)
      .set({ organisation_id: initech } as any)
      .where('domain' as any, '=', 'hooli.test')
      .execute();
    const set = await users('PUT', `/admin/organisations/${initech}/sso`, {
      provider: 'initech',
      issuer: initechIdp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-2',
    });
    expect(set.status).toBe(200);
    clock.advance(31_000);
    const { session, messages } = await signIn(initechIdp, 'dinesh@hooli.test', 'initech');
    expect(session).toBeUndefined();
    expect(messages).toEqual([
      'This account belongs to another organisation than the one whose identity provider answered. Contact your administrator.',
    ]);
    expect(await oidcIdentifiers(dinesh.body.identityId)).toEqual([]);
  });

  it('changing the issuer removes the links made through the old one', async () => {
    const restored = await users('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex-2',
      issuer: globexIdp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
    });
    expect(restored.status).toBe(200);
    const hopper = (
      (await db.kysely
        .selectFrom('identity_verifiable_addresses' as any)
        .select('identity_id' as any)
        .where('value' as any, '=', 'hopper@globex.test')
        .executeTakeFirstOrThrow()) as any
    ).identity_id as string;
    await db.kysely
      .insertInto('identity_credential_identifiers' as any)
      .values({ identifier: `${globex}:${globexIdp.issuer}#s-1`, type: 'oidc', identity_id: hopper } as any)
      .execute();
    const moved = await users('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex-2',
      issuer: `${globexIdp.issuer}/elsewhere`,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
    });
    expect(moved.status).toBe(200);
    expect(await oidcIdentifiers(hopper)).toEqual([]);
  });

  it('the admin API refuses a link removal without organisation or issuer (400, never a 500)', async () => {
    for (const query of [
      'organisation_id=x&issuer=%00',
      `organisation_id=${globex}`,
      `organisation_id=${globex}&issuer=http%3A%2F%2Fa.test%2F%00x`,
      `organisation_id=${globex}&issuer=${'h'.repeat(600)}`,
    ]) {
      const res = await admin(identityAdmin, 'DELETE', `/admin/oidc/links?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
  });
});
