import { expect } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import type { FakeClock } from '@acme/db/clock';
import { ORG_IDP_DEMO_PASSWORD } from '@acme/dev';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '@acme/users';
import { start as startIdentity } from '../src/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// What the organisation single sign-on tests (OIDC and SAML) share: the real identity service and
// the real user service over HTTP on one test database, the provider stand-ins a test starts, the
// user service's admin API, and a small cookie jar that plays the browser through a login flow.

/** The app's origin: where the login UI lives and what the browser's form posts carry as Origin. */
export const APP = 'http://localhost:4999';

interface AdminAnswer {
  status: number;
  body: any;
}

/** An admin API at `base` (JSON in and out), with the admin key when `key` is given. */
export function adminApi(base: string, key?: string) {
  return async (method: string, path: string, json?: unknown): Promise<AdminAnswer> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(json ? { 'content-type': 'application/json' } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
}

/** The organisation Globex's OIDC provider, as the SSO enforcement tests set it; `enforce` turns enforcement on. */
export const globexProvider = (enforce: boolean) => ({
  provider: 'globex',
  issuer: 'https://idp.globex.test',
  clientId: 'acme-platform',
  clientSecret: 'client-secret-1',
  enforce,
});

/** A small cookie jar that plays the browser: never follows a redirect by itself. */
export class SsoBrowser {
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
  /** Follows redirects while they stay below `prefix`es; returns the first URL outside them. */
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

/**
 * At an organisation IdP stand-in (OIDC, at `issuer`): its page for `authorizeUrl`, then sign in as
 * `email` (or cancel); answers the URL outside the IdP it sends the browser to (our callback).
 */
export async function atOrgIdp(
  browser: SsoBrowser,
  issuer: string,
  authorizeUrl: string,
  email: string,
  action: 'login' | 'cancel' = 'login',
): Promise<string> {
  const page = await browser.follow(authorizeUrl, [issuer]);
  expect(page.startsWith(`${issuer}/interaction/`), page).toBe(true);
  return browser.follow(`${page}/${action}`, [issuer], {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: ORG_IDP_DEMO_PASSWORD }),
  });
}

/**
 * The real user service on `ports` (public, admin) and `db`, calling the identity service at
 * `identityAdmin`/`identityPublic`; `env` adds to its settings (its admin keys).
 */
export function startUsersService(options: {
  db: Database;
  ports: [number, number];
  identityAdmin: string;
  identityPublic: string;
  env?: Record<string, string>;
}): Promise<{ close(): Promise<void> }> {
  return startUsers({
    db: options.db,
    logger: false,
    mailer: createMemoryMailer(),
    env: {
      USERS_PUBLIC_PORT: String(options.ports[0]),
      USERS_ADMIN_PORT: String(options.ports[1]),
      USERS_MANAGEMENT_PORT: '0',
      IDENTITY_ADMIN_URL: options.identityAdmin,
      IDENTITY_PUBLIC_URL: options.identityPublic,
      ...options.env,
      OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'silent',
    },
  });
}

export interface SsoStack {
  db: Database;
  identityPublic: string;
  identityAdmin: string;
  usersAdmin: string;
  /** The user service's admin API (keyed when the stack is). */
  users: ReturnType<typeof adminApi>;
  /** The identity service's admin API (keyed when the stack is). */
  identity: ReturnType<typeof adminApi>;
  /** The mails the identity service sent (codes, notices), oldest first. */
  identityMail: { to: string; subject: string }[];
  /** A new organisation with `domain` and the product Platform (and `products`); answers its id. */
  createOrganisation(name: string, domain: string, products?: string[]): Promise<string>;
  /** A new login flow (JSON) and its csrf token. */
  newLoginFlow(browser: SsoBrowser): Promise<{ id: string; csrf: string; action: string }>;
  /** Posts the login form's SSO choice as the app does (method oidc); answers where the 303 points. */
  submitSso(browser: SsoBrowser, flow: { csrf: string; action: string }, provider: string): Promise<string>;
  /** The browser's session (401 without one). */
  whoami(browser: SsoBrowser): Promise<AdminAnswer>;
  /** The messages on a login flow, as the app reads them after the redirect. */
  flowMessages(browser: SsoBrowser, flowId: string): Promise<string[]>;
  /** The login flow's messages (id, text, type, context) as a reader of `acceptLanguage` gets them. */
  flowMessagesIn(
    browser: SsoBrowser,
    flowId: string,
    acceptLanguage: string,
  ): Promise<{ id: number; text: string; type: string; context?: unknown }[]>;
  /** A settings flow, then a TOTP set-up posted on it (a code that is never checked): the answer. */
  tryTotpSetUp(browser: SsoBrowser): Promise<AdminAnswer>;
  close(): Promise<void>;
}

/**
 * Starts the identity and user services on a fresh test database. `providers` starts the provider
 * stand-ins first (an OIDC stand-in needs our callback URL, on `identityPublic`); the stack closes
 * them with itself. `adminKey` keys both admin APIs and the calls between the services.
 */
export async function startSsoStack(options: {
  providers: (identityPublic: string) => Promise<{ close(): Promise<void> }[]>;
  clock?: FakeClock;
  adminKey?: string;
  identityEnv?: Record<string, string>;
}): Promise<SsoStack> {
  const { adminKey: key } = options;
  const db = await createTestDb();
  const [idPub, idAdm, usPub, usAdm] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const identityPublic = `http://localhost:${idPub}`;
  const identityAdmin = `http://localhost:${idAdm}`;
  const usersAdmin = `http://localhost:${usAdm}`;
  const closers = (await options.providers(identityPublic)).map((p) => () => p.close());
  const identityMailer = createMemoryMailer();
  const keys = (...names: string[]) => (key ? Object.fromEntries(names.map((n) => [n, key])) : {});
  const identityService = await startIdentity({
    db,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: false,
    mailer: identityMailer,
    env: {
      IDENTITY_PUBLIC_PORT: String(idPub),
      IDENTITY_ADMIN_PORT: String(idAdm),
      IDENTITY_MANAGEMENT_PORT: '0',
      IDENTITY_PUBLIC_URL: identityPublic,
      IDENTITY_ADMIN_URL: identityAdmin,
      ...keys('IDENTITY_ADMIN_KEY'),
      USERS_ADMIN_URL: usersAdmin,
      ...keys('USERS_ADMIN_KEY'),
      IDENTITY_LOGIN_UI_URL: `${APP}/account/login`,
      IDENTITY_ERROR_UI_URL: `${APP}/account/error`,
      IDENTITY_DEFAULT_RETURN_URL: `${APP}/`,
      IDENTITY_CORS_ORIGINS: APP,
      IDENTITY_ALLOWED_RETURN_URLS: APP,
      // The provider stand-ins listen on loopback, over plain http (as under `npm start`).
      IDENTITY_SSO_HTTP_HOSTS: 'localhost,127.0.0.1',
      IDENTITY_SSO_ALLOW_PRIVATE: 'true',
      ...options.identityEnv,
      OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'silent',
    },
  });
  closers.push(identityService.close);
  const usersService = await startUsersService({
    db,
    ports: [usPub, usAdm],
    identityAdmin,
    identityPublic,
    env: keys('USERS_ADMIN_KEY', 'IDENTITY_ADMIN_KEY'),
  });
  closers.push(usersService.close);
  const users = adminApi(usersAdmin, key);
  const json = { headers: { accept: 'application/json' } };
  return {
    db,
    identityPublic,
    identityAdmin,
    usersAdmin,
    users,
    identity: adminApi(identityAdmin, key),
    identityMail: identityMailer.messages,
    async createOrganisation(name, domain, products = []) {
      const res = await users('POST', '/admin/organisations', {
        name,
        domains: [domain],
        products: ['Platform', ...products],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    },
    async newLoginFlow(browser) {
      const res = await browser.go(`${identityPublic}/self-service/login/browser`, json);
      expect(res.status).toBe(200);
      const flow = (await res.json()) as any;
      const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
      return { id: flow.id, csrf, action: flow.ui.action };
    },
    async submitSso(browser, flow, provider) {
      const res = await browser.go(flow.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: APP },
        body: new URLSearchParams({ method: 'oidc', provider, csrf_token: flow.csrf }),
      });
      expect(res.status).toBe(303);
      return res.headers.get('location')!;
    },
    async whoami(browser) {
      const res = await browser.go(`${identityPublic}/sessions/whoami`, json);
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    },
    async flowMessages(browser, flowId) {
      const res = await browser.go(`${identityPublic}/self-service/login/flows?id=${flowId}`, json);
      expect(res.status).toBe(200);
      return (((await res.json()) as any).ui?.messages ?? []).map((m: any) => m.text as string);
    },
    async flowMessagesIn(browser, flowId, acceptLanguage) {
      const res = await browser.go(`${identityPublic}/self-service/login/flows?id=${flowId}`, {
        headers: { accept: 'application/json', 'accept-language': acceptLanguage },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as any).ui?.messages ?? [];
    },
    async tryTotpSetUp(browser) {
      const res = await browser.go(`${identityPublic}/self-service/settings/browser`, json);
      expect(res.status).toBe(200);
      const flow = (await res.json()) as any;
      const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
      const submit = await browser.go(flow.ui.action, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', origin: APP },
        body: JSON.stringify({ method: 'totp', totp_code: '123456', csrf_token: csrf }),
      });
      return { status: submit.status, body: (await submit.json().catch(() => undefined)) as any };
    },
    async close() {
      for (const close of closers.reverse()) await close().catch(() => undefined);
      await db.close();
    },
  };
}
