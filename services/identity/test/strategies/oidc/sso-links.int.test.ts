import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { ORG_IDP_DEMO_PASSWORD, orgIdpSubject, startOrgIdp, type OrgIdp } from '@acme/dev';
import { atOrgIdp, SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 20, items 4 and 11: an SSO link is keyed by the provider's record (organisation + issuer),
// dies with the provider, and never joins an identity of another organisation; and the identity
// service's calls to the user service carry USERS_ADMIN_KEY. Real identity and user services (both
// admin APIs require keys; the stack of ../../sso-harness.ts), two organisation IdP stand-ins, a
// small cookie jar as the browser.

const KEY = 'sso-links-admin-key-0123456789-abcdefghij';

describe('identity: SSO links belong to the provider record that made them', () => {
  let stack: SsoStack;
  let db: Database;
  let globexIdp: OrgIdp;
  let initechIdp: OrgIdp;
  let usersAdmin: string;
  let globex: string;
  let initech: string;
  const clock = new FakeClock();
  const users = (method: string, path: string, json?: unknown) => stack.users(method, path, json);

  beforeAll(async () => {
    stack = await startSsoStack({
      clock,
      adminKey: KEY,
      providers: async (identityPublic) => {
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
            {
              email: 'dinesh@hooli.test',
              password: ORG_IDP_DEMO_PASSWORD,
              givenName: 'Dinesh',
              familyName: 'C',
            },
          ],
          clients: [
            {
              clientId: 'acme-platform',
              clientSecret: 'client-secret-2',
              redirectUris: [callback, `${identityPublic}/self-service/methods/oidc/callback/initech`],
            },
          ],
        });
        return [globexIdp, initechIdp];
      },
    });
    ({ db, usersAdmin } = stack);
    globex = await stack.createOrganisation('Globex', 'globex.test');
    initech = await stack.createOrganisation('Initech', 'initech.test');
    const set = await users('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex',
      issuer: globexIdp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
    });
    expect(set.status).toBe(200);
  }, 60_000);
  afterAll(() => stack.close());

  async function signIn(idp: OrgIdp, email: string, provider = 'globex') {
    const browser = new Browser();
    const flow = await stack.newLoginFlow(browser);
    const callback = await atOrgIdp(
      browser,
      idp.issuer,
      await stack.submitSso(browser, flow, provider),
      email,
    );
    await browser.go(callback);
    const whoami = await stack.whoami(browser);
    return {
      session: whoami.status === 200 ? whoami.body : undefined,
      messages: await stack.flowMessages(browser, flow.id),
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
      const res = await stack.identity('DELETE', `/admin/oidc/links?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
  });
});
