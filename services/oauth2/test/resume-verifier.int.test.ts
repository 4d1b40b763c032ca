import { describe, expect, it } from 'vitest';
import {
  adminJson,
  authorizeUrl,
  CookieJar,
  DEFAULT_EXT,
  location,
  navigate,
  useTestServer,
} from './harness.ts';

const server = useTestServer();
const LOGIN = '/admin/oauth2/auth/requests/login';
const CONSENT = '/admin/oauth2/auth/requests/consent';

/** A browser that started an authorization, and the login challenge it was sent to the app with. */
async function startAuthorization() {
  const jar = new CookieJar();
  const res = await navigate(jar, authorizeUrl(server.issuer).url);
  const challenge = location(res).searchParams.get('login_challenge')!;
  expect(challenge).toBeTruthy();
  return { jar, challenge };
}

async function acceptLogin(challenge: string, subject = 'victim') {
  const accepted = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
    subject,
    identity_provider_session_id: 'victim-session',
  });
  expect(accepted.status).toBe(200);
  return accepted.body.redirect_to as string;
}

async function acceptConsent(challenge: string) {
  const accepted = await adminJson(server, 'PUT', `${CONSENT}/accept?consent_challenge=${challenge}`, {
    grant_scope: ['openid', 'offline_access'],
    session: { access_token: DEFAULT_EXT, id_token: {} },
  });
  expect(accepted.status).toBe(200);
  return accepted.body.redirect_to as string;
}

describe('login and consent verifiers bind the authorization to its browser', () => {
  it('accepting a login answers a redirect_to with a one-time login_verifier (Hydra)', async () => {
    const { challenge } = await startAuthorization();
    const redirectTo = new URL(await acceptLogin(challenge));
    expect(`${redirectTo.origin}${redirectTo.pathname}`).toBe(`${server.issuer}/oauth2/auth/${challenge}`);
    expect(redirectTo.searchParams.get('login_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('login challenge fixation: the browser that started the authorization cannot resume it with the challenge alone', async () => {
    // The attacker starts an authorization and sends the victim the login link; the victim signs in.
    const attacker = await startAuthorization();
    await acceptLogin(attacker.challenge);
    // The attacker's browser holds the resume cookie but never saw the verifier.
    const res = await navigate(attacker.jar, `${server.issuer}/oauth2/auth/${attacker.challenge}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    // Guessing a verifier does not help either.
    const guessed = await navigate(
      attacker.jar,
      `${server.issuer}/oauth2/auth/${attacker.challenge}?login_verifier=${'A'.repeat(43)}`,
    );
    expect(guessed.status).toBe(400);
  });

  it('login verifier in another browser: following redirect_to elsewhere answers an OAuth2 error, never a code, and ends the authorization', async () => {
    const attacker = await startAuthorization();
    const redirectTo = await acceptLogin(attacker.challenge);
    // The victim's browser follows redirect_to, but it did not start this authorization.
    const victim = await navigate(new CookieJar(), redirectTo);
    expect(victim.status).toBe(403);
    expect(victim.headers.get('location')).toBeNull();
    expect(await victim.json()).toMatchObject({ error: 'access_denied' });
    // The verifier is spent and the authorization ended: the attacker cannot replay it.
    const replay = await navigate(attacker.jar, redirectTo);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
  });

  it('login verifier replay: a verifier resumes once only', async () => {
    const { jar, challenge } = await startAuthorization();
    const redirectTo = await acceptLogin(challenge);
    const first = await navigate(jar, redirectTo);
    expect(first.status).toBe(303);
    expect(location(first).pathname).toBe('/account/consent');
    const again = await navigate(jar, redirectTo);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('consent verifier in another browser: no code; in the starting browser: the code', async () => {
    const { jar, challenge } = await startAuthorization();
    const consent = location(await navigate(jar, await acceptLogin(challenge)));
    const consentChallenge = consent.searchParams.get('consent_challenge')!;
    const redirectTo = await acceptConsent(consentChallenge);
    expect(new URL(redirectTo).searchParams.get('consent_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Without the verifier the starting browser gets nothing.
    const bare = await navigate(jar, `${server.issuer}/oauth2/auth/${consentChallenge}`);
    expect(bare.status).toBe(400);
    // A login verifier does not resume a consent (kinds are not interchangeable).
    const swapped = new URL(redirectTo);
    swapped.searchParams.set('login_verifier', swapped.searchParams.get('consent_verifier')!);
    swapped.searchParams.delete('consent_verifier');
    expect((await navigate(jar, swapped.toString())).status).toBe(400);
  });

  it('consent verifier: the starting browser with the verifier reaches the callback with a code', async () => {
    const { jar, challenge } = await startAuthorization();
    const consent = location(await navigate(jar, await acceptLogin(challenge)));
    const redirectTo = await acceptConsent(consent.searchParams.get('consent_challenge')!);
    const stranger = await navigate(new CookieJar(), redirectTo);
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get('location')).toBeNull();

    const { jar: jar2, challenge: challenge2 } = await startAuthorization();
    const consent2 = location(await navigate(jar2, await acceptLogin(challenge2)));
    const callback = location(
      await navigate(jar2, await acceptConsent(consent2.searchParams.get('consent_challenge')!)),
    );
    expect(callback.pathname).toBe('/account/callback');
    expect(callback.searchParams.get('code')).toMatch(/^ory_ac_/);
  });

  it('malformed verifiers answer invalid_request, never 5xx', async () => {
    const { jar, challenge } = await startAuthorization();
    await acceptLogin(challenge);
    for (const query of [
      'login_verifier=',
      `login_verifier=${'x'.repeat(500)}`,
      'login_verifier=a&login_verifier=b',
      'login_verifier=a&consent_verifier=b',
    ]) {
      const res = await navigate(jar, `${server.issuer}/oauth2/auth/${challenge}?${query}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    }
  });
});
