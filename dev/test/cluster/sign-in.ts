import { expect } from 'vitest';
import type { Listener } from '@acme/system-shape';
import { DEMO_PASSWORD } from '@acme/users';
import { csrfOf } from '../../../services/identity/test/harness.ts';
import { platformAuthorizeUrl } from '../../../services/users/test/auth-stack.ts';
import { Jar } from '../../../services/users/test/jar.ts';

type Urls = Record<Listener, string>;

/**
 * A browser's sign-in through the cluster's processes up to the accepted password: authorize at
 * the authorization server, the identity login flow with its `login_challenge`, the password.
 * Answers the jar (the browser's cookies), where identity sends the browser next, and the PKCE
 * verifier for the token exchange.
 */
export async function passwordAccepted(
  urls: Urls,
  identifier = 'ada@acme.test',
  password = DEMO_PASSWORD,
): Promise<{ jar: Jar; redirect: string; verifier: string }> {
  const jar = new Jar(urls.platform);
  const { url, verifier } = platformAuthorizeUrl(urls.oauth2Public, urls.platform);
  const login = await jar.navigateToApp(url);
  expect(login.pathname).toBe('/account/login');
  const challenge = login.searchParams.get('login_challenge')!;
  const flow = await jar.fetch(
    `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`,
    { headers: { accept: 'application/json' } },
  );
  expect(flow.res.status).toBe(200);
  const submitted = await jar.fetch(`${urls.identityPublic}/self-service/login?flow=${flow.body.id}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    json: { method: 'password', identifier, password, csrf_token: csrfOf(flow.body) },
  });
  expect(submitted.res.status, JSON.stringify(submitted.body)).toBe(422);
  return { jar, redirect: submitted.body.redirect_browser_to as string, verifier };
}

/** The platform app's code exchange at the authorization server's token endpoint. */
export function exchangeCode(urls: Urls, code: string, verifier: string): Promise<Response> {
  return fetch(`${urls.oauth2Public}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${urls.platform}/account/callback`,
      code_verifier: verifier,
      client_id: 'platform',
    }).toString(),
  });
}
