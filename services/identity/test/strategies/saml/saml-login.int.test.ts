import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import {
  SAML_IDP_DEMO_PASSWORD,
  SAML_IDP_DEMO_USERS,
  SAML_IDP_NEXT_CERT,
  startSamlIdp,
  type SamlIdp,
  type SamlIdpAnswer,
  type SamlIdpVariant,
} from '@acme/dev';
import { samlText } from '../../../src/strategies/saml/saml-login.ts';
import { APP, SsoBrowser as Browser, startSsoStack, type SsoStack } from '../../sso-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// SAML sign-in end to end over real HTTP (issue 26): our identity service as the service provider
// (node-saml), Initech's IdP stand-in (samlify) producing every answer, and the real user service
// keeping the SAML provider (the IdP's metadata as the stand-in serves it), members and just-in-time
// creation (the stack of ../../sso-harness.ts, as the OIDC tests use it). A small cookie jar plays the
// browser; the ACS is posted without cookies, as a cross-site POST is.

const T0 = new Date('2026-11-20T10:00:00.000Z');
const MINUTE = 60_000;

describe('identity: SAML 2.0 sign-in (service provider)', () => {
  let stack: SsoStack;
  let db: Database;
  let idp: SamlIdp;
  let identityPublic: string;
  let initech: string;
  const clock = new FakeClock(T0);
  /** The stand-in's IdP metadata, as an IT admin pastes it. */
  let metadata: string;
  const admin = (method: string, path: string, json?: unknown) => stack.users(method, path, json);

  beforeAll(async () => {
    stack = await startSsoStack({
      clock,
      providers: async () => {
        idp = await startSamlIdp({
          port: 0,
          now: () => clock.now(),
          users: [
            ...SAML_IDP_DEMO_USERS,
            {
              email: 'lumbergh@initrode.test',
              password: SAML_IDP_DEMO_PASSWORD,
              firstName: 'Bill',
              lastName: 'Lumbergh',
            },
          ],
        });
        return [idp];
      },
    });
    ({ db, identityPublic } = stack);
    initech = await stack.createOrganisation('Initech', 'initech.test');
    metadata = await (await fetch(idp.metadataUrl)).text();
    const milton = await admin('POST', '/admin/users', {
      organisationId: initech,
      email: 'milton@initech.test',
      firstName: 'Milton',
      lastName: 'Waddams',
      role: 'member',
    });
    expect(milton.status).toBe(201);
  }, 60_000);

  afterAll(() => stack.close());

  /** Initech's SAML provider in the user service, as `sso:set --protocol saml --metadata-file` sets it. */
  async function setSaml(extra: Record<string, unknown> = {}) {
    const res = await admin('PUT', `/admin/organisations/${initech}/sso`, {
      protocol: 'saml',
      provider: 'initech',
      metadataXml: metadata,
      jit: true,
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  beforeEach(async () => {
    await setSaml();
    // Past the identity service's 30 s provider cache, so each test's provider is the one read.
    clock.advance(31_000);
  });

  /** A login flow, submitted for Initech as the app does (method oidc); answers the flow id and the IdP URL. */
  async function startSignIn(browser: Browser): Promise<{ flowId: string; idpUrl: string }> {
    const flow = await stack.newLoginFlow(browser);
    return { flowId: flow.id, idpUrl: await stack.submitSso(browser, flow, 'initech') };
  }

  /** At the IdP: sign in; answers what its auto-submitting form would post to our ACS. */
  async function atIdp(idpUrl: string, email: string, variant?: SamlIdpVariant): Promise<SamlIdpAnswer> {
    expect(idpUrl.startsWith(idp.ssoUrl)).toBe(true);
    const page = await fetch(idpUrl);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    const pending = /name="pending" value="([^"]+)"/.exec(html)![1]!;
    if (variant) idp.setVariant(variant);
    const posted = await fetch(`${idp.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ pending, email, password: SAML_IDP_DEMO_PASSWORD }),
    });
    const form = await posted.text();
    expect(form, form).toContain('name="SAMLResponse"');
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
    return {
      acs: /action="([^"]+)"/.exec(form)![1]!.replaceAll('&amp;', '&'),
      samlResponse: field('SAMLResponse'),
      relayState: field('RelayState'),
    };
  }

  /** The IdP's cross-site POST to our ACS: no cookies (SameSite=Lax), a form body. */
  const postAcs = (answer: SamlIdpAnswer, overrides: Record<string, string> = {}) =>
    fetch(answer.acs, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        origin: new URL(idp.url).origin,
      },
      body: new URLSearchParams({
        SAMLResponse: answer.samlResponse,
        RelayState: answer.relayState,
        ...overrides,
      }),
    });

  const whoami = (browser: Browser) => stack.whoami(browser);
  /** The messages on a login flow (as the app reads them after the redirect). */
  const flowMessages = (browser: Browser, flowId: string) => stack.flowMessages(browser, flowId);

  /** Signs in through the IdP and the ACS; answers where the finish sent the browser. */
  async function fullSignIn(browser: Browser, email: string) {
    const { flowId, idpUrl } = await startSignIn(browser);
    const answer = await atIdp(idpUrl, email);
    const acs = await postAcs(answer);
    expect(acs.status).toBe(303);
    const finish = acs.headers.get('location')!;
    expect(finish).toBe(`${identityPublic}/self-service/methods/saml/finish/initech?flow=${flowId}`);
    const done = await browser.go(finish, { headers: { accept: 'text/html' } });
    return { flowId, done };
  }

  /** Expects the ACS to have refused `answer` with `message` on its flow, and no session for the browser. */
  async function expectRefused(browser: Browser, flowId: string, acs: Response, message: string) {
    expect(acs.status).toBe(303);
    expect(acs.headers.get('location')).toBe(`${APP}/account/login?flow=${flowId}`);
    expect(await flowMessages(browser, flowId)).toContain(message);
    expect((await whoami(browser)).status).toBe(401);
  }

  async function refusal(variant: SamlIdpVariant, email = 'milton@initech.test') {
    const browser = new Browser();
    const { flowId, idpUrl } = await startSignIn(browser);
    const answer = await atIdp(idpUrl, email, variant);
    const acs = await postAcs(answer);
    return { browser, flowId, acs, answer };
  }

  it('milton signs in through the IdP: a SAML session (method saml, provider initech), encrypted assertion accepted', async () => {
    const browser = new Browser();
    const { done } = await fullSignIn(browser, 'milton@initech.test');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP}/`);
    const me = await whoami(browser);
    expect(me.status).toBe(200);
    expect(me.body.identity.traits.email).toBe('milton@initech.test');
    expect(me.body.authentication_methods).toEqual([
      expect.objectContaining({ method: 'saml', provider: 'initech', aal: 'aal1' }),
    ]);
  });

  it('a SAML session is an SSO session: setting up MFA is refused (server side), as for OIDC', async () => {
    const browser = new Browser();
    await fullSignIn(browser, 'milton@initech.test');
    const submit = await stack.tryTotpSetUp(browser);
    expect(submit.status).toBe(400);
    expect(submit.body.ui.messages.map((m: any) => m.text)).toEqual(['SSO users cannot set up MFA']);
  });

  it("a SAML link is keyed by the organisation, the IdP's entity id and the NameID, and dies with the provider", async () => {
    await fullSignIn(new Browser(), 'milton@initech.test');
    const key = `${initech}:${idp.entityId}#milton@initech.test`;
    const links = async () =>
      (
        await sql<{ identifier: string }>`
          select identifier from identity_credential_identifiers where type = 'oidc' and identifier = ${key}`.execute(
          db.kysely,
        )
      ).rows;
    expect(await links()).toHaveLength(1);
    expect((await admin('DELETE', `/admin/organisations/${initech}/sso`)).status).toBeLessThan(300);
    expect(await links()).toHaveLength(0);
  });

  it('peter is created just in time, with the names the IdP sent', async () => {
    expect((await admin('GET', `/admin/users?email=peter%40initech.test`)).body?.items ?? []).toHaveLength(0);
    const browser = new Browser();
    await fullSignIn(browser, 'peter@initech.test');
    const me = await whoami(browser);
    expect(me.status).toBe(200);
    expect(me.body.identity.traits.email).toBe('peter@initech.test');
    const rows = await sql<{ email: string; first_name: string }>`
      select email, first_name from users where email = 'peter@initech.test'`.execute(db.kysely);
    expect(rows.rows).toEqual([{ email: 'peter@initech.test', first_name: 'Peter' }]);
  });

  it('our SP metadata: entity id = its URL, ACS, signing and encryption certificates, signed requests and assertions', async () => {
    const res = await fetch(`${identityPublic}/self-service/methods/saml/metadata/initech`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await res.text();
    expect(xml).toContain(`entityID="${identityPublic}/self-service/methods/saml/metadata/initech"`);
    expect(xml).toContain(`Location="${identityPublic}/self-service/methods/saml/acs/initech"`);
    expect(xml).toContain('AuthnRequestsSigned="true"');
    expect(xml).toContain('WantAssertionsSigned="true"');
    expect(xml).toMatch(/KeyDescriptor use="signing"/);
    expect(xml).toMatch(/KeyDescriptor use="encryption"/);
    const unknown = await fetch(`${identityPublic}/self-service/methods/saml/metadata/nobody`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe(404);
  });

  it('the AuthnRequest is signed (HTTP-Redirect binding) and RelayState names the flow', async () => {
    const { flowId, idpUrl } = await startSignIn(new Browser());
    const url = new URL(idpUrl);
    expect(url.searchParams.get('RelayState')).toBe(flowId);
    expect(url.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(url.searchParams.get('Signature')).toBeTruthy();
    const stored = await sql<{ flow_id: string }>`
      select flow_id from identity_saml_requests where flow_id = ${flowId}`.execute(db.kysely);
    expect(stored.rows).toHaveLength(1);
  });

  it('unsigned assertion refused: a signed Response alone is not enough', async () => {
    const { browser, flowId, acs } = await refusal('unsigned');
    await expectRefused(browser, flowId, acs, samlText.signature);
    const events = await sql<{ details: any }>`
      select details from identity_security_events where type = 'signin.failed'
      and details->>'method' = 'saml' and details->>'reason' = 'saml_signature'`.execute(db.kysely);
    expect(events.rows.length).toBeGreaterThan(0);
    expect(events.rows[0]!.details.provider).toBe('initech');
  });

  it('wrong certificate: an answer signed by a key that is not the stored certificate is refused', async () => {
    const { browser, flowId, acs } = await refusal('wrong-certificate');
    await expectRefused(browser, flowId, acs, samlText.signature);
  });

  it('a SAML refusal reads in German for a German reader: same id 4000001, English kept as the context reason', async () => {
    const { browser, flowId, acs } = await refusal('wrong-certificate');
    expect(acs.status).toBe(303);
    expect(await stack.flowMessagesIn(browser, flowId, 'de-CH, de;q=0.8')).toEqual([
      {
        id: 4000001,
        text: 'Die Antwort des Identitätsanbieters Ihrer Organisation ist nicht mit seinem hinterlegten Zertifikat signiert. Wenden Sie sich an Ihren Administrator.',
        type: 'error',
        context: { reason: samlText.signature },
      },
    ]);
    expect((await stack.flowMessagesIn(browser, flowId, 'en')).map((m) => m.text)).toEqual([
      samlText.signature,
    ]);
  });

  it('certificate rollover: an answer signed with either stored certificate is accepted', async () => {
    const next = SAML_IDP_NEXT_CERT.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    await setSaml({
      metadataXml: metadata.replace(
        /<(\w+:)?KeyDescriptor/,
        (m, ns: string | undefined) =>
          `<${ns ?? ''}KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${next}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></${ns ?? ''}KeyDescriptor>${m}`,
      ),
    });
    clock.advance(31_000);
    const stored = await admin('GET', '/admin/sso/providers/initech');
    expect(stored.body.saml.certificates).toHaveLength(2);
    const browser = new Browser();
    const { done } = await fullSignIn(browser, 'milton@initech.test');
    expect(done.headers.get('location')).toBe(`${APP}/`);
  });

  it('XML signature wrapping: a forged assertion beside the signed one is refused (peter can not become milton)', async () => {
    const { browser, flowId, acs, answer } = await refusal('wrapped', 'peter@initech.test');
    const xml = Buffer.from(answer.samlResponse, 'base64').toString('utf8');
    expect(xml).toContain('<samlp:Extensions>');
    await expectRefused(browser, flowId, acs, samlText.signature);
  });

  it('expired and not-yet-valid answers are refused', async () => {
    const expired = await refusal('expired');
    await expectRefused(expired.browser, expired.flowId, expired.acs, samlText.expired);
    const early = await refusal('not-yet-valid');
    await expectRefused(early.browser, early.flowId, early.acs, samlText.expired);
  });

  it('clock skew: 2 minutes either side of NotBefore/NotOnOrAfter, not a millisecond more', async () => {
    // The IdP writes NotBefore = now and NotOnOrAfter = now + 5 min; we post at shifted times.
    const at = async (offsetMs: number) => {
      const browser = new Browser();
      const { flowId, idpUrl } = await startSignIn(browser);
      const issued = clock.now().getTime();
      const answer = await atIdp(idpUrl, 'milton@initech.test');
      clock.set(issued + offsetMs);
      const acs = await postAcs(answer);
      clock.set(issued);
      return { browser, flowId, acs };
    };
    const before = clock.now().getTime();
    for (const ok of [-2 * MINUTE, 7 * MINUTE - 1]) {
      const r = await at(ok);
      expect(r.acs.status).toBe(303);
      expect(r.acs.headers.get('location')).toContain('/self-service/methods/saml/finish/initech');
    }
    for (const late of [-2 * MINUTE - 1, 7 * MINUTE]) {
      const r = await at(late);
      await expectRefused(r.browser, r.flowId, r.acs, samlText.expired);
    }
    // Forward past every time used above (the provider cache must not outlive this test).
    clock.set(before + 10 * MINUTE);
  });

  it('wrong audience refused', async () => {
    const { browser, flowId, acs } = await refusal('wrong-audience');
    await expectRefused(browser, flowId, acs, samlText.audience);
  });

  it('wrong destination refused', async () => {
    const { browser, flowId, acs } = await refusal('wrong-destination');
    await expectRefused(browser, flowId, acs, samlText.destination);
  });

  it("InResponseTo bound to the browser's flow: an answer for flow A posted with flow B's RelayState is refused", async () => {
    const a = new Browser();
    const b = new Browser();
    const flowA = await startSignIn(a);
    const flowB = await startSignIn(b);
    const answerA = await atIdp(flowA.idpUrl, 'milton@initech.test');
    const acs = await postAcs(answerA, { RelayState: flowB.flowId });
    await expectRefused(b, flowB.flowId, acs, samlText.in_response_to);
  });

  it('unsolicited (IdP-initiated) answers are refused unless the provider allows them', async () => {
    const { browser, flowId, acs } = await refusal('unsolicited');
    await expectRefused(browser, flowId, acs, samlText.in_response_to);
  });

  it('replayed assertion: the same answer twice, and 50 parallel posts, give exactly one session', async () => {
    const browser = new Browser();
    const { flowId, idpUrl } = await startSignIn(browser);
    const answer = await atIdp(idpUrl, 'milton@initech.test');
    const posts = await Promise.all(Array.from({ length: 50 }, () => postAcs(answer)));
    const finishes = posts.filter((r) =>
      r.headers.get('location')?.includes('/self-service/methods/saml/finish/'),
    );
    expect(finishes).toHaveLength(1);
    expect(posts.every((r) => r.status === 303)).toBe(true);
    const done = await browser.go(finishes[0]!.headers.get('location')!, {
      headers: { accept: 'text/html' },
    });
    expect(done.headers.get('location')).toBe(`${APP}/`);
    // The finish is single use too: a second GET creates nothing.
    const again = await browser.go(finishes[0]!.headers.get('location')!, {
      headers: { accept: 'application/json' },
    });
    expect(again.status).not.toBe(200);
    const sessions = await sql<{ n: number }>`
      select count(*)::int as n from identity_sessions s where s.authentication_methods::text like ${'%"saml"%'}
      and s.created_at = ${clock.now()}`.execute(db.kysely);
    expect(sessions.rows[0]!.n).toBe(1);
    expect(flowId).toBeTruthy();
  });

  it('replayed IdP-initiated assertion (the assertion id is the only guard): 20 flows, exactly one success', async () => {
    await setSaml({ allowIdpInitiated: true });
    clock.advance(31_000);
    const first = new Browser();
    const start = await startSignIn(first);
    const answer = await atIdp(start.idpUrl, 'milton@initech.test', 'unsolicited');
    const browsers = Array.from({ length: 20 }, () => new Browser());
    const flows = await Promise.all(browsers.map((b) => startSignIn(b)));
    const posts = await Promise.all(flows.map((f) => postAcs(answer, { RelayState: f.flowId })));
    const accepted = posts.filter((r) => r.headers.get('location')?.includes('/saml/finish/'));
    expect(accepted).toHaveLength(1);
    const refusedIndex = posts.findIndex((r) => !r.headers.get('location')?.includes('/saml/finish/'));
    expect(await flowMessages(browsers[refusedIndex]!, flows[refusedIndex]!.flowId)).toContain(
      samlText.replayed,
    );
  });

  it('an IdP page with Referrer-Policy no-referrer posts with Origin: null: the ACS still takes it (its proof is the signed answer)', async () => {
    const browser = new Browser();
    const { idpUrl } = await startSignIn(browser);
    const answer = await atIdp(idpUrl, 'milton@initech.test');
    const res = await fetch(answer.acs, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        origin: 'null',
        'sec-fetch-site': 'cross-site',
      },
      body: new URLSearchParams({ SAMLResponse: answer.samlResponse, RelayState: answer.relayState }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/self-service/methods/saml/finish/initech');
    // Every other write from an opaque origin is still refused.
    const login = await fetch(`${identityPublic}/self-service/login?flow=${answer.relayState}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'null', 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(login.status).toBe(403);
  });

  it("email outside the organisation's domains is refused, and no member is created", async () => {
    const { browser, flowId, acs } = await refusal('valid', 'lumbergh@initrode.test');
    await expectRefused(browser, flowId, acs, samlText.domain);
    const rows = await sql`select 1 from users where email = 'lumbergh@initrode.test'`.execute(db.kysely);
    expect(rows.rows).toHaveLength(0);
  });

  it("the finish needs the flow's cookie: another browser gets 403 and no session; the right browser then finishes", async () => {
    const browser = new Browser();
    const { idpUrl } = await startSignIn(browser);
    const answer = await atIdp(idpUrl, 'milton@initech.test');
    const acs = await postAcs(answer);
    const finish = acs.headers.get('location')!;
    const stranger = new Browser();
    const stolen = await stranger.go(finish, { headers: { accept: 'application/json' } });
    expect(stolen.status).toBe(403);
    expect((await whoami(stranger)).status).toBe(401);
    const done = await browser.go(finish, { headers: { accept: 'text/html' } });
    expect(done.headers.get('location')).toBe(`${APP}/`);
    expect((await whoami(browser)).status).toBe(200);
  });

  it('malformed SAMLResponse: base64 junk, non-XML, missing, oversized, no RelayState: flow messages or error envelopes, never 500', async () => {
    const browser = new Browser();
    const { flowId, idpUrl } = await startSignIn(browser);
    const answer = await atIdp(idpUrl, 'milton@initech.test');
    for (const junk of ['!!!not base64!!!', Buffer.from('hello, not xml').toString('base64'), '']) {
      const res = await postAcs(answer, { SAMLResponse: junk });
      expect(res.status).toBe(303);
      expect(await flowMessages(browser, flowId)).toContain(samlText.malformed);
    }
    const json = await fetch(answer.acs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ SAMLResponse: 'PD94bWw+', RelayState: answer.relayState }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).ui.messages[0].text).toBe(samlText.malformed);
    const oversized = await fetch(answer.acs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `SAMLResponse=${'A'.repeat(300 * 1024)}&RelayState=${answer.relayState}`,
    });
    expect(oversized.status).toBe(413);
    expect(((await oversized.json()) as any).error.code).toBe(413);
    const noFlow = await fetch(answer.acs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ SAMLResponse: answer.samlResponse }),
    });
    expect(noFlow.status).toBe(404);
    expect(((await noFlow.json()) as any).error.reason).toBe('The requested flow could not be found.');
    const nul = await fetch(answer.acs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `SAMLResponse=%00&RelayState=${answer.relayState}`,
    });
    expect(nul.status).toBe(400);
    // The genuine answer still works after all that.
    const ok = await postAcs(answer);
    expect(ok.headers.get('location')).toContain('/saml/finish/initech');
  });
});
