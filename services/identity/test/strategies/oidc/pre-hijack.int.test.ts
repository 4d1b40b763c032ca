import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import {
  ORG_IDP_DEMO_PASSWORD,
  SAML_IDP_DEMO_PASSWORD,
  SAML_IDP_DEMO_USERS,
  startOrgIdp,
  startSamlIdp,
  type OrgIdp,
  type SamlIdp,
} from '@acme/dev';
import { APP, atOrgIdp, SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 31, item 2(a): account pre-hijacking through self sign-up. A stranger registers the address
// of someone who has no account yet (self sign-up is open; no mailbox needed), then the real person
// signs in through their organisation's IdP for the first time (OIDC at Globex, SAML at Initech).
// The link must not hand them an account whose starter still holds a way in. Real identity and user
// services, the IdP stand-ins, a small cookie jar as each browser.

const STRANGER_PASSWORD = 'Stranger-Password-2026!';
const NOTICE = 'Sign-in methods you did not set up were removed from your';

describe('identity: SSO first sign-in never adopts a stranger’s unproven account', () => {
  let stack: SsoStack;
  let db: Database;
  let oidcIdp: OrgIdp;
  let samlIdp: SamlIdp;
  let identityPublic: string;
  const clock = new FakeClock(new Date('2026-11-28T10:00:00.000Z'));
  const users = (method: string, path: string, json?: unknown) => stack.users(method, path, json);

  beforeAll(async () => {
    stack = await startSsoStack({
      clock,
      providers: async (publicUrl) => {
        oidcIdp = await startOrgIdp({
          port: 0,
          users: [
            {
              email: 'hopper@globex.test',
              password: ORG_IDP_DEMO_PASSWORD,
              givenName: 'Grace',
              familyName: 'H',
            },
          ],
          clients: [
            {
              clientId: 'acme-platform',
              clientSecret: 'client-secret-1',
              redirectUris: [`${publicUrl}/self-service/methods/oidc/callback/globex`],
            },
          ],
        });
        samlIdp = await startSamlIdp({ port: 0, now: () => clock.now(), users: [...SAML_IDP_DEMO_USERS] });
        return [oidcIdp, samlIdp];
      },
    });
    ({ db, identityPublic } = stack);
    const globex = await stack.createOrganisation('Globex', 'globex.test');
    const initech = await stack.createOrganisation('Initech', 'initech.test');
    const oidc = await users('PUT', `/admin/organisations/${globex}/sso`, {
      provider: 'globex',
      issuer: oidcIdp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'client-secret-1',
    });
    expect(oidc.status, JSON.stringify(oidc.body)).toBe(200);
    const saml = await users('PUT', `/admin/organisations/${initech}/sso`, {
      protocol: 'saml',
      provider: 'initech',
      metadataXml: await (await fetch(samlIdp.metadataUrl)).text(),
      jit: true,
    });
    expect(saml.status, JSON.stringify(saml.body)).toBe(200);
    for (const org of [globex, initech]) {
      expect((await users('PUT', `/admin/organisations/${org}/self-signup`, { enabled: true })).status).toBe(
        200,
      );
    }
  }, 60_000);
  afterAll(() => stack.close());

  const json = { accept: 'application/json', 'content-type': 'application/json', origin: APP };

  /** The stranger's self sign-up with `email` in their own browser; answers that browser and the answer. */
  async function strangerSignsUp(email: string) {
    const b = new Browser();
    const start = await b.go(`${identityPublic}/self-service/registration/browser`, { headers: json });
    expect(start.status).toBe(200);
    const flow = (await start.json()) as any;
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const res = await b.go(flow.ui.action, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        method: 'password',
        password: STRANGER_PASSWORD,
        traits: { email, name: { first: 'Mallory', last: 'Stranger' } },
        csrf_token: csrf,
      }),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return { b, body };
  }

  /** A password sign-in in a fresh browser: the status and whether it holds a session afterwards. */
  async function passwordSignIn(email: string, password: string) {
    const b = new Browser();
    const flow = await stack.newLoginFlow(b);
    const res = await b.go(flow.action, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ method: 'password', identifier: email, password, csrf_token: flow.csrf }),
    });
    const body = (await res.json()) as any;
    return { status: res.status, body, session: (await stack.whoami(b)).status === 200 };
  }

  const notices = async (to: string) =>
    stack.identityMail.filter((m) => m.to === to && m.subject.startsWith(NOTICE));

  const credentialTypes = async (email: string) =>
    (
      await sql<{ type: string }>`
        select c.type from identity_credentials c
        join identity_verifiable_addresses a on a.identity_id = c.identity_id
        where a.value = ${email} order by c.type`.execute(db.kysely)
    ).rows.map((r) => r.type);

  /** The stranger's state before the person arrives: an account, no session, the password refused until proven. */
  async function squat(email: string) {
    const { b, body } = await strangerSignsUp(email);
    expect(body.session).toBeUndefined();
    expect((await stack.whoami(b)).status).toBe(401);
    const early = await passwordSignIn(email, STRANGER_PASSWORD);
    expect(early.status).toBe(400);
    expect(early.body.ui.messages.map((m: any) => m.id)).toEqual([4000010]);
    expect(early.session).toBe(false);
    expect(await credentialTypes(email)).toEqual(['password']);
    return body.identity.id as string;
  }

  /** After the person's first SSO sign-in: the account is theirs, and the stranger's password is dead. */
  async function expectReclaimed(email: string, squatted: string, session: any) {
    expect(session.identity.id).toBe(squatted);
    expect(session.identity.verifiable_addresses[0].verified).toBe(true);
    expect(await credentialTypes(email)).toEqual(['oidc']);
    const after = await passwordSignIn(email, STRANGER_PASSWORD);
    expect(after.session).toBe(false);
    expect(after.body.ui.messages.map((m: any) => m.id)).toEqual([4000006]);
    expect(await notices(email)).toHaveLength(1);
    const events = await sql<{ type: string; details: any }>`
      select type, details from identity_security_events where subject_id = ${squatted} and type = 'account.reclaimed'`.execute(
      db.kysely,
    );
    expect(events.rows).toHaveLength(1);
  }

  it('SSO first sign-in (OIDC) does not adopt a stranger’s unverified account with its password working', async () => {
    const email = 'hopper@globex.test';
    const squatted = await squat(email);

    const browser = new Browser();
    const flow = await stack.newLoginFlow(browser);
    const callback = await atOrgIdp(
      browser,
      oidcIdp.issuer,
      await stack.submitSso(browser, flow, 'globex'),
      email,
    );
    await browser.go(callback);
    const me = await stack.whoami(browser);
    expect(me.status).toBe(200);
    await expectReclaimed(email, squatted, me.body);
    // The person's own way in keeps working, and a second SSO sign-in reclaims nothing more.
    const again = new Browser();
    const flow2 = await stack.newLoginFlow(again);
    await again.go(
      await atOrgIdp(again, oidcIdp.issuer, await stack.submitSso(again, flow2, 'globex'), email),
    );
    expect((await stack.whoami(again)).status).toBe(200);
    expect(await notices(email)).toHaveLength(1);
  });

  it('SSO first sign-in (SAML) does not adopt a stranger’s unverified account with its password working', async () => {
    const email = 'peter@initech.test';
    const squatted = await squat(email);

    const browser = new Browser();
    const flow = await stack.newLoginFlow(browser);
    const idpUrl = await stack.submitSso(browser, flow, 'initech');
    const page = await (await fetch(idpUrl)).text();
    const pending = /name="pending" value="([^"]+)"/.exec(page)![1]!;
    const posted = await fetch(`${samlIdp.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ pending, email, password: SAML_IDP_DEMO_PASSWORD }),
    });
    const form = await posted.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
    const acs = await fetch(/action="([^"]+)"/.exec(form)![1]!.replaceAll('&amp;', '&'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(samlIdp.url).origin },
      body: new URLSearchParams({ SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') }),
    });
    expect(acs.status).toBe(303);
    await browser.go(acs.headers.get('location')!, { headers: { accept: 'text/html' } });
    const me = await stack.whoami(browser);
    expect(me.status).toBe(200);
    await expectReclaimed(email, squatted, me.body);
  });
});
