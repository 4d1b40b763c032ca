import { createHash, randomBytes } from 'node:crypto';
import { PLATFORM_API_AUDIENCE } from '@acme/service-kit/audiences';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/seed.ts';
import { Jar } from './jar.ts';
import {
  passwordLogin,
  startRealStack,
  tokenRequest,
  whoami as sessionOf,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The consent screen of an application that is not the platform's own (registered through the
 * authorization server's admin client API, without skip_consent), through our real identity
 * service and authorization server: what the screen shows, Deny, Allow, remembered consent, and
 * Connected apps.
 */

const APP_ORIGIN = 'http://localhost:4000';
const RP_ORIGIN = 'https://reports.acme.test';
const REDIRECT_URI = `${RP_ORIGIN}/callback`;

describe('consent for an application that is not the platform’s own', () => {
  let stack: RealStack;
  let urls: RealStackUrls;
  let client: { client_id: string; client_secret: string };
  let acmeId: string;

  beforeAll(async () => {
    stack = await startRealStack({
      appOrigin: APP_ORIGIN,
      oauth2KnowsUsers: false,
      usersEnv: (auth) => ({ IDENTITY_PUBLIC_URL: auth.identityPublic }),
    });
    urls = stack.urls;
    await seedDemo(urls.usersAdmin);
    const orgs = (await new Jar().fetch(`${urls.usersAdmin}/admin/organisations`)).body
      .organisations as any[];
    acmeId = orgs.find((o) => o.name.startsWith('Acme'))?.id ?? orgs[0].id;
    client = await register({
      client_name: 'Reports <b>Pro</b>',
      logo_uri: `${RP_ORIGIN}/logo.png`,
      policy_uri: `${RP_ORIGIN}/privacy`,
      tos_uri: `${RP_ORIGIN}/terms`,
      client_uri: RP_ORIGIN,
      owner: acmeId,
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  /** A confidential web app of the authorization code grant, through the admin client API. */
  async function register(fields: Record<string, unknown>) {
    const created = await fetch(`${urls.oauth2Admin}/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'openid offline_access',
        ...fields,
      }),
    });
    expect(created.status).toBe(201);
    return (await created.json()) as { client_id: string; client_secret: string };
  }

  function authorizeUrl(clientId: string, scope = 'openid', prompt?: string) {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${urls.issuer}/oauth2/auth`);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope,
      state: randomBytes(12).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })) {
      url.searchParams.set(k, v);
    }
    if (prompt) url.searchParams.set('prompt', prompt);
    return { url: url.toString(), verifier };
  }

  /** Follows redirects until the account app (login, consent) or the application's callback. */
  async function follow(jar: Jar, from: string): Promise<URL> {
    let next = new URL(from);
    for (let hop = 0; hop < 10; hop++) {
      if (next.origin === APP_ORIGIN || next.origin === RP_ORIGIN) return next;
      const { res } = await jar.fetch(next.toString());
      const location = res.headers.get('location');
      if (!location) throw new Error(`expected a redirect from ${next.toString()}, got ${res.status}`);
      next = new URL(location, next);
    }
    throw new Error('too many redirects');
  }

  /** Signs in (a new browser unless `jar` is given) and returns where the authorization went. */
  async function authorize(
    email: string,
    options: { jar?: Jar; clientId?: string; scope?: string; prompt?: string } = {},
  ) {
    const jar = options.jar ?? new Jar();
    const { url, verifier } = authorizeUrl(
      options.clientId ?? client.client_id,
      options.scope,
      options.prompt,
    );
    let at = await follow(jar, url);
    if (at.pathname === '/account/login') {
      const submitted = await passwordLogin(
        jar,
        urls.identityPublic,
        at.searchParams.get('login_challenge')!,
        email,
      );
      at = await follow(jar, submitted.body.redirect_browser_to);
    }
    const session = (await sessionOf(jar, urls.identityPublic)).body;
    return { jar, at, verifier, session, challenge: at.searchParams.get('consent_challenge') ?? '' };
  }

  const screenOf = (jar: Jar, challenge: string) =>
    jar.fetch(`${urls.users}/login/consent/request?consentChallenge=${encodeURIComponent(challenge)}`, {
      headers: { origin: APP_ORIGIN },
    });

  const answer = (challenge: string, identitySessionId: string, decision?: string) =>
    new Jar().fetch(`${urls.users}/login/consent`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN },
      json: { consentChallenge: challenge, identitySessionId, ...(decision ? { decision } : {}) },
    });

  async function exchange(callback: URL, verifier: string) {
    const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
    return tokenRequest(
      urls.issuer,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      undefined,
      `Basic ${basic}`,
    );
  }

  const connectedApps = async (jar: Jar) =>
    (await jar.fetch(`${urls.users}/me/connected-apps`, { headers: { origin: APP_ORIGIN } })).body
      .apps as any[];

  it('the screen names the application, its links, who registered it, the access asked for and the organisation', async () => {
    const { jar, at, challenge } = await authorize('grace@acme.test');
    expect(at.pathname).toBe('/account/consent');
    const screen = await screenOf(jar, challenge);
    expect(screen.res.status, JSON.stringify(screen.body)).toBe(200);
    expect(screen.res.headers.get('cache-control')).toBe('no-store');
    expect(screen.body).toEqual({
      needsConsent: true,
      client: {
        clientId: client.client_id,
        name: 'Reports <b>Pro</b>',
        logoUri: `${RP_ORIGIN}/logo.png`,
        clientUri: RP_ORIGIN,
        policyUri: `${RP_ORIGIN}/privacy`,
        tosUri: `${RP_ORIGIN}/terms`,
      },
      registeredBy: { organisation: expect.stringMatching(/Acme/) },
      requestedScope: ['openid'],
      organisation: { name: expect.stringMatching(/Acme/) },
    });
  });

  it('threat: a logo that is not https (here plain http) is never shown; an application the operator registered says so', async () => {
    const operators = await register({ client_name: 'Ops tool', logo_uri: 'http://ops.acme.test/logo.png' });
    const { jar, challenge } = await authorize('grace@acme.test', { clientId: operators.client_id });
    const screen = await screenOf(jar, challenge);
    expect(screen.res.status, JSON.stringify(screen.body)).toBe(200);
    expect(screen.body.registeredBy).toEqual({ organisation: null });
    expect(screen.body.client.logoUri).toBeNull();
  });

  it('Deny returns access_denied to the application, and no code', async () => {
    const { jar, at, challenge, session } = await authorize('grace@acme.test');
    const denied = await answer(challenge, session.id, 'deny');
    expect(denied.res.status).toBe(200);
    const back = await follow(jar, denied.body.redirectTo);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect(at.pathname).toBe('/account/consent');
  });

  it('Allow issues tokens with the claims the platform’s own apps get, remembered for this client and these scopes, asked again for more', async () => {
    const { jar, challenge, session, verifier } = await authorize('ada@acme.test');
    const allowed = await answer(challenge, session.id, 'allow');
    expect(allowed.res.status).toBe(200);
    const callback = await follow(jar, allowed.body.redirectTo);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    const token = await exchange(callback, verifier);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const claims = JSON.parse(Buffer.from(token.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims.sub).toBe(session.identity.id);
    expect(claims.ext).toMatchObject({ user: { email: 'ada@acme.test' }, role: 'org-admin' });

    // The same browser: no consent screen, straight back with a code.
    const again = await authorize('ada@acme.test', { jar });
    expect(again.at.origin + again.at.pathname).toBe(REDIRECT_URI);
    expect(again.at.searchParams.get('code')).toEqual(expect.any(String));

    // Another browser: the consent request says it is remembered (Hydra's skip), no screen needed.
    const other = await authorize('ada@acme.test');
    expect(other.at.pathname).toBe('/account/consent');
    expect((await screenOf(other.jar, other.challenge)).body.needsConsent).toBe(false);
    const accepted = await answer(other.challenge, other.session.id);
    expect(accepted.res.status).toBe(200);
    expect((await follow(other.jar, accepted.body.redirectTo)).searchParams.get('code')).toEqual(
      expect.any(String),
    );

    // The application asks for the screen (prompt=consent): shown again.
    const prompted = await authorize('ada@acme.test', { jar, prompt: 'consent' });
    expect(prompted.at.pathname).toBe('/account/consent');
    expect((await screenOf(jar, prompted.challenge)).body.needsConsent).toBe(true);

    // More scopes than were allowed: asked again.
    const more = await authorize('ada@acme.test', { jar, scope: 'openid offline_access' });
    expect(more.at.pathname).toBe('/account/consent');
    expect((await screenOf(jar, more.challenge)).body).toMatchObject({
      needsConsent: true,
      requestedScope: ['openid', 'offline_access'],
    });
  });

  it('Connected apps lists the application by its name; revoking it means the next authorization asks again', async () => {
    const { jar, challenge, session } = await authorize('grace@acme.test');
    await follow(jar, (await answer(challenge, session.id, 'allow')).body.redirectTo);
    const listed = await connectedApps(jar);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ clientId: client.client_id, name: 'Reports <b>Pro</b>' }),
      ]),
    );
    const revoked = await jar.fetch(`${urls.users}/me/connected-apps/${client.client_id}`, {
      method: 'DELETE',
      headers: { origin: APP_ORIGIN },
    });
    expect(revoked.res.status).toBe(204);
    expect((await connectedApps(jar)).map((a) => a.clientId)).not.toContain(client.client_id);
    const next = await authorize('grace@acme.test', { jar });
    expect(next.at.pathname).toBe('/account/consent');
    expect((await screenOf(jar, next.challenge)).body.needsConsent).toBe(true);
  });

  it('threat: a consent challenge of another person’s session is refused — not shown, not allowed, not denied', async () => {
    const ada = await authorize('ada@acme.test', { scope: 'openid offline_access' });
    const grace = await authorize('grace@acme.test');
    const shown = await screenOf(grace.jar, ada.challenge);
    expect(shown.res.status).toBe(403);
    expect(shown.body.errorCode).toBe('SESSION_MISMATCH');
    for (const decision of ['allow', 'deny']) {
      const res = await answer(ada.challenge, grace.session.id, decision);
      expect(res.res.status).toBe(403);
      expect(res.body.errorCode).toBe('SESSION_MISMATCH');
    }
    // Ada's request is still hers to answer.
    expect((await screenOf(ada.jar, ada.challenge)).res.status).toBe(200);
    // Without any session: 401, nothing shown.
    expect((await screenOf(new Jar(), ada.challenge)).res.status).toBe(401);
  });

  it('threat: an application without skip_consent never gets the claims without the person’s answer', async () => {
    const { challenge, session } = await authorize('grace@acme.test');
    const unanswered = await answer(challenge, session.id);
    expect(unanswered.res.status).toBe(403);
    expect(unanswered.body.errorCode).toBe('CONSENT_REQUIRED');
    // The request is still pending: the screen can still be answered.
    expect((await answer(challenge, session.id, 'deny')).res.status).toBe(200);
  });

  it('refuses an unknown decision with 400 and an unknown challenge with 404', async () => {
    const { jar, challenge, session } = await authorize('grace@acme.test');
    expect((await answer(challenge, session.id, 'maybe')).res.status).toBe(400);
    const unknown = await screenOf(jar, 'unknown-challenge');
    expect(unknown.res.status).toBe(404);
    expect(unknown.body.errorCode).toBe('CONSENT_REQUEST_NOT_FOUND');
    expect((await screenOf(jar, '')).res.status).toBe(400);
  });
  it('a web app the organisation registered in its console signs people in through the consent screen naming it', async () => {
    // The org-admin's identity (a sign-in that stops at the consent screen), then a console token.
    const first = await authorize('ada@acme.test');
    const federated = await fetch(`${urls.oauth2Admin}/admin/oauth2/federated-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: first.session.identity.id,
        client_id: 'platform',
        session: { access_token: {} },
      }),
    });
    expect(federated.status).toBe(200);
    const consoleToken = ((await federated.json()) as any).access_token as string;
    const registered = await new Jar().fetch(`${urls.users}/console/organisations/${acmeId}/api-clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${consoleToken}` },
      json: { kind: 'web', name: 'Reports', redirectUris: [REDIRECT_URI] },
    });
    expect(registered.res.status, JSON.stringify(registered.body)).toBe(201);
    const web = registered.body as { id: string; clientSecret: string };

    const { jar, challenge, session, verifier } = await authorize('ada@acme.test', {
      jar: first.jar,
      clientId: web.id,
    });
    const screen = await screenOf(jar, challenge);
    expect(screen.res.status, JSON.stringify(screen.body)).toBe(200);
    expect(screen.body.needsConsent).toBe(true);
    expect(screen.body.client).toMatchObject({ clientId: web.id, name: expect.stringMatching(/Reports$/) });
    expect(screen.body.registeredBy).toEqual({ organisation: expect.stringMatching(/Acme/) });

    const allowed = await answer(challenge, session.id, 'allow');
    expect(allowed.res.status).toBe(200);
    const callback = await follow(jar, allowed.body.redirectTo);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    const token = await tokenRequest(
      urls.issuer,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      undefined,
      `Basic ${Buffer.from(`${web.id}:${web.clientSecret}`).toString('base64')}`,
    );
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const claims = JSON.parse(Buffer.from(token.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims.sub).toBe(session.identity.id);
    expect(claims.client_id).toBe(web.id);
    expect([claims.aud].flat()).toContain(PLATFORM_API_AUDIENCE);
  });
});
