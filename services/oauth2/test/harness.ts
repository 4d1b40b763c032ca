import { createHash, randomBytes } from 'node:crypto';
import { createTestDb, type Database } from '@acme/db';
import type { Clock } from '@acme/db/clock';
import { freePort } from '@acme/test-kit/free-port';
import { afterAll, beforeAll } from 'vitest';
import { start } from '../src/index.ts';

/** Test harness: the server on free ports, a browser-like cookie jar, and the Hydra login dance. */

export interface TestServer {
  db: Database;
  issuer: string;
  /** Where this instance listens (differs from the issuer when instances share one). */
  publicUrl: string;
  admin: string;
  /** The management listener: GET /metrics, /health/alive, /health/ready. */
  management: string;
  close(): Promise<void>;
}

export const PLATFORM = { clientId: 'platform', origin: 'http://localhost:4000' };
export const REDIRECT_URI = `${PLATFORM.origin}/account/callback`;

export async function startServer(
  options: { db?: Database; env?: Record<string, string>; clock?: Clock } = {},
): Promise<TestServer> {
  const db = options.db ?? (await createTestDb());
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  const publicUrl = `http://localhost:${publicPort}`;
  const started = await start({
    db,
    clock: options.clock,
    logger: false,
    env: {
      OAUTH2_PUBLIC_URL: publicUrl,
      OAUTH2_PUBLIC_PORT: String(publicPort),
      OAUTH2_ADMIN_PORT: String(adminPort),
      OAUTH2_MANAGEMENT_PORT: '0',
      ...options.env,
    },
  });
  const issuer = options.env?.OAUTH2_PUBLIC_URL ?? publicUrl;
  return {
    db,
    issuer,
    publicUrl,
    admin: started.urls.admin!,
    management: started.urls.management!,
    close: started.close,
  };
}

/**
 * One server for the whole test file: started before its tests, closed with its database after them.
 * The returned object is filled in by `beforeAll`, so use it inside tests and hooks only.
 */
export function useTestServer(options: Parameters<typeof startServer>[0] = {}): TestServer {
  const server: Partial<TestServer> = {};
  beforeAll(async () => {
    Object.assign(server, await startServer(options));
  });
  afterAll(async () => {
    await server.close?.();
    await server.db?.close();
  });
  return server as TestServer;
}

export class CookieJar {
  readonly #cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a) || /max-age=0\b/i.test(a.trim()));
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  has(name: string): boolean {
    return this.#cookies.has(name);
  }
}

/** A browser navigation without following redirects. */
export async function navigate(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header();
  if (cookie) headers.set('cookie', cookie);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.store(res);
  return res;
}

export function location(res: Response): URL {
  const value = res.headers.get('location');
  if (!value) throw new Error(`expected a redirect, got ${res.status}: no location`);
  return new URL(value, res.url);
}

function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export function authorizeUrl(issuer: string, overrides: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(12).toString('base64url');
  const params: Record<string, string | undefined> = {
    client_id: PLATFORM.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  const url = new URL(`${issuer}/oauth2/auth`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return { url: url.toString(), verifier, state };
}

export async function adminJson(
  server: TestServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.admin}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export const DEFAULT_EXT = {
  user: { authenticationMode: 'ory' },
  products: ['platform'],
  scopeGroups: ['research'],
};

/**
 * Runs authorize → login challenge → admin accept → resume → consent challenge → admin accept →
 * callback, and returns the callback URL.
 */
export async function signIn(
  server: TestServer,
  options: {
    jar?: CookieJar;
    subject?: string;
    ext?: Record<string, unknown>;
    authorize?: Record<string, string | undefined>;
  } = {},
) {
  const jar = options.jar ?? new CookieJar();
  const { url, verifier, state } = authorizeUrl(server.issuer, options.authorize);
  let res = await navigate(jar, url);
  let next = location(res);
  const loginChallenge = next.searchParams.get('login_challenge');
  if (loginChallenge) {
    const accepted = await adminJson(
      server,
      'PUT',
      `/admin/oauth2/auth/requests/login/accept?login_challenge=${loginChallenge}`,
      { subject: options.subject ?? 'identity-1', remember: true, remember_for: 86400, amr: ['password'] },
    );
    if (accepted.status !== 200) throw new Error(`login accept ${accepted.status}`);
    res = await navigate(jar, accepted.body.redirect_to as string);
    next = location(res);
  }
  const consentChallenge = next.searchParams.get('consent_challenge');
  if (!consentChallenge) throw new Error(`expected consent, got ${next.toString()}`);
  const consent = await adminJson(
    server,
    'GET',
    `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
  );
  const accepted = await adminJson(
    server,
    'PUT',
    `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
    {
      grant_scope: consent.body.requested_scope,
      session: { access_token: options.ext ?? DEFAULT_EXT, id_token: { email: 'ada@acme.test' } },
    },
  );
  if (accepted.status !== 200) throw new Error(`consent accept ${accepted.status}`);
  res = await navigate(jar, accepted.body.redirect_to as string);
  const callback = location(res);
  return { callback, verifier, state, jar, loginChallenge, consentChallenge };
}

export async function tokenRequest(
  server: TestServer,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${server.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

export async function exchangeCode(server: TestServer, code: string, verifier: string) {
  return tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: PLATFORM.clientId,
  });
}

export async function refresh(server: TestServer, refreshToken: string) {
  return tokenRequest(server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: PLATFORM.clientId,
  });
}

export async function introspect(server: TestServer, token: string) {
  const res = await fetch(`${server.admin}/admin/oauth2/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
