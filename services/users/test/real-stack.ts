import { expect } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '../src/index.ts';
import { DEMO_PASSWORD } from '../src/seed.ts';
import { platformAuthorizeUrl, startAuthStack, type AuthStackUrls } from './auth-stack.ts';
import type { Jar } from './jar.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The set-up and the steps shared by the `*.real` tests: our real authorization server, identity
 * service and user service in process on one test database, as `npm start` runs them, and the
 * browser's and the CLI's requests against them (password login at a login challenge, token
 * requests, the device flow's first steps).
 */

export interface RealStackUrls extends AuthStackUrls {
  users: string;
  usersAdmin: string;
}

export interface RealStack {
  db: Database;
  urls: RealStackUrls;
  /** Closes the services in reverse start order, then the database. */
  close(): Promise<void>;
}

export async function startRealStack(options: {
  appOrigin: string;
  /** The authorization server asks the user service (first-party consent skip, refresh re-checks). Default true. */
  oauth2KnowsUsers?: boolean;
  oauth2Env?: Record<string, string>;
  /** The identity service's extra env; a function receives the user service's admin URL. */
  identityEnv?: Record<string, string> | ((usersAdminUrl: string) => Record<string, string>);
  /** The user service's extra env; a function receives the auth stack's URLs. */
  usersEnv?: Record<string, string> | ((urls: AuthStackUrls) => Record<string, string>);
}): Promise<RealStack> {
  const db = await createTestDb();
  const closers: (() => Promise<void>)[] = [];
  const [usersPublic, usersAdmin] = await Promise.all([freePort(), freePort()]);
  const usersAdminUrl = `http://localhost:${usersAdmin}`;
  const { identityEnv, usersEnv } = options;
  const auth = await startAuthStack(db, closers, {
    appOrigin: options.appOrigin,
    ...(options.oauth2KnowsUsers === false ? {} : { usersAdminUrl }),
    ...(options.oauth2Env ? { oauth2Env: options.oauth2Env } : {}),
    ...(identityEnv
      ? { identityEnv: typeof identityEnv === 'function' ? identityEnv(usersAdminUrl) : identityEnv }
      : {}),
  });
  const users = await startUsers({
    db,
    logger: false,
    env: {
      USERS_PUBLIC_PORT: String(usersPublic),
      USERS_ADMIN_PORT: String(usersAdmin),
      USERS_MANAGEMENT_PORT: '0',
      IDENTITY_ADMIN_URL: auth.identityAdmin,
      OAUTH2_ADMIN_URL: auth.oauth2Admin,
      ...(typeof usersEnv === 'function' ? usersEnv(auth) : usersEnv),
    },
  });
  closers.push(users.close);
  return {
    db,
    urls: { ...auth, users: users.urls.public!, usersAdmin: users.urls.admin! },
    async close() {
      for (const close of closers.reverse()) await close();
      await db.close();
    },
  };
}

/** The identity service's login flow for `loginChallenge`, answered with a password: the submit's answer. */
export async function passwordLogin(
  jar: Jar,
  identityPublic: string,
  loginChallenge: string,
  email: string,
  password = DEMO_PASSWORD,
): Promise<{ res: Response; body: any }> {
  const flow = await jar.fetch(
    `${identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(loginChallenge)}`,
    { headers: { accept: 'application/json' } },
  );
  expect(flow.res.status).toBe(200);
  const csrf = flow.body.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
  return jar.fetch(`${identityPublic}/self-service/login?flow=${flow.body.id}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    json: { method: 'password', identifier: email, password, csrf_token: csrf },
  });
}

/** The identity session of the browser `jar` (`GET /sessions/whoami`). */
export const whoami = (jar: Jar, identityPublic: string) =>
  jar.fetch(`${identityPublic}/sessions/whoami`, { headers: { accept: 'application/json' } });

/** `POST /oauth2/token` with a form, from `via` (a browser with its address) or plainly. */
export async function tokenRequest(
  issuer: string,
  form: Record<string, string>,
  via?: Jar,
  authorization?: string,
): Promise<{ status: number; body: any }> {
  const init = {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
    },
    body: new URLSearchParams(form).toString(),
  };
  if (via) {
    const { res, body } = await via.fetch(`${issuer}/oauth2/token`, init);
    return { status: res.status, body };
  }
  const res = await fetch(`${issuer}/oauth2/token`, init);
  return { status: res.status, body: await res.json() };
}

/** The app's callback `code` exchanged for tokens (client `platform`, PKCE), from `via` or plainly. */
export const exchangeCode = (issuer: string, callback: URL, verifier: string, via?: Jar) =>
  tokenRequest(
    issuer,
    {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: `${callback.origin}/account/callback`,
      code_verifier: verifier,
      client_id: 'platform',
    },
    via,
  );

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The CLI's device authorization (client `research-cli`). */
export async function deviceAuthorization(issuer: string) {
  const res = await fetch(`${issuer}/oauth2/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'research-cli', scope: 'openid offline_access' }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { device_code: string; user_code: string; verification_uri: string };
}

/** The CLI's poll of its device code. */
export const pollDevice = (issuer: string, deviceCode: string) =>
  tokenRequest(issuer, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'research-cli' });

/**
 * The accepted user code's `redirectTo` (the verifier) → the library's auto-posted form, posted as
 * the browser does: the authorization server's answer (its `location` leads to the login request).
 */
export async function postDeviceVerification(jar: Jar, issuer: string, redirectTo: string) {
  const form = await jar.fetch(redirectTo);
  expect(form.res.status).toBe(200);
  const inputs: Record<string, string> = {};
  for (const m of String(form.body).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)) {
    inputs[m[1]!] = m[2]!;
  }
  return jar.fetch(`${issuer}/oauth2/device/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(inputs).toString(),
  });
}

/**
 * Authorize (client `platform`, PKCE) → password login → (first-party consent skipped) → tokens,
 * as the app at `appOrigin` does it; `browser` keeps its identity session cookie.
 */
async function passwordSignIn(
  browser: Jar,
  urls: { issuer: string; identityPublic: string },
  appOrigin: string,
  email: string,
  password = DEMO_PASSWORD,
): Promise<{ access_token: string; refresh_token: string }> {
  const { url, verifier } = platformAuthorizeUrl(urls.issuer, appOrigin);
  const login = await browser.navigateToApp(url);
  const challenge = login.searchParams.get('login_challenge')!;
  const submitted = await passwordLogin(browser, urls.identityPublic, challenge, email, password);
  expect(submitted.res.status).toBe(422);
  const callback = await browser.navigateToApp(submitted.body.redirect_browser_to);
  const token = await exchangeCode(urls.issuer, callback, verifier);
  expect(token.status).toBe(200);
  return token.body;
}

/**
 * The token endpoint and the password sign-in of one stack, bound to its URLs: `urls` is read at each
 * call, so a suite can hand over the object its `beforeAll` fills in.
 */
export function boundSignIn(urls: Record<string, string>, appOrigin: string, password: string) {
  return {
    tokenRequest: (form: Record<string, string>, authorization?: string) =>
      tokenRequest(urls.issuer!, form, undefined, authorization),
    /** Authorize → password login → (consent skipped) → tokens; the browser keeps its session cookie. */
    signIn: (browser: Jar, email: string) =>
      passwordSignIn(
        browser,
        { issuer: urls.issuer!, identityPublic: urls.identityPublic! },
        appOrigin,
        email,
        password,
      ),
  };
}
