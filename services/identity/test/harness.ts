import type { AddressInfo } from 'node:net';
import type { pino } from 'pino';
import { expect } from 'vitest';
import { totpCodeAt } from '../src/strategies/totp/totp.ts';
import { createTestDb, migrate, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { createApp, type IdentityApp, type Mailer } from '../src/app.ts';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { loadConfig, type Config } from '../src/config.ts';
import type { Registry } from '../src/flows/strategy.ts';
import { migrations } from '../src/migrations.ts';
import type { Mail } from '../src/testing/strategy-context.ts';

export interface Harness {
  db: Database;
  clock: FakeClock;
  app: IdentityApp;
  config: Config;
  publicUrl: string;
  adminUrl: string;
  /** The management listener: GET /metrics, /health/alive, /health/ready (as `start` serves them). */
  managementUrl: string;
  /** Every message the service queued, newest last. */
  mailbox: Mail[];
  close(): Promise<void>;
}

/** The six-digit code in the newest mail to `to`. */
export function lastCode(h: Harness, to: string): string {
  const mail = [...h.mailbox].reverse().find((m) => m.to === to);
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code mailed to ${to}`);
  return code;
}

/** Starts the service over real HTTP on 127.0.0.1 (random ports) on a fresh test database. */
export async function startHarness(
  env: Record<string, string> = {},
  shared?: { db: Database; clock: FakeClock },
  options: { strategies?: Registry; logger?: pino.Logger; mailer?: Mailer } = {},
): Promise<Harness> {
  const db = shared?.db ?? (await createTestDb());
  const clock = shared?.clock ?? new FakeClock(new Date('2026-03-01T10:00:00.000Z'));
  await migrate(db, 'identity', migrations);
  // The public URL decides the cookie names, so it must be known before listening: use the fixed
  // loopback host with port 0 replaced after listen (the value only feeds names and `action` URLs).
  // OAUTH2_ADMIN_URL points at a closed port unless a test brings its own stand-in.
  const config0 = loadConfig({ LOG_LEVEL: 'silent', OAUTH2_ADMIN_URL: 'http://127.0.0.1:9', ...env });
  const mailbox: Mail[] = [];
  // The outbox itself when a test reads it (the courier API); else a mailbox in memory.
  const mailer = options.mailer ?? {
    async enqueue(msg: Mail) {
      mailbox.push(msg);
    },
  };
  const app0 = await createApp({
    config: config0,
    db,
    clock,
    mailer,
    ...options,
    logger: options.logger ?? false,
  });
  await app0.public.listen({ host: '127.0.0.1', port: 0 });
  await app0.admin.listen({ host: '127.0.0.1', port: 0 });
  const publicUrl = `http://127.0.0.1:${(app0.public.server.address() as AddressInfo).port}`;
  const adminUrl = `http://127.0.0.1:${(app0.admin.server.address() as AddressInfo).port}`;
  const management = await startManagementServer({
    host: '127.0.0.1',
    port: 0,
    metrics: app0.ctx.metrics.service,
    db,
  });
  return {
    db,
    clock,
    app: app0,
    config: config0,
    publicUrl,
    adminUrl,
    managementUrl: management.url,
    mailbox,
    async close() {
      await closeWithManagement(management, () => app0.close());
      if (!shared) await db.close();
    },
  };
}

export interface Res {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON and assert on it
  body: any;
  text: string;
  setCookies: string[];
}

/** A tiny cookie jar + fetch wrapper that never follows redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    opts: {
      json?: unknown;
      form?: Record<string, string>;
      body?: string;
      headers?: Record<string, string>;
      accept?: 'json' | 'html';
    } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.accept === 'json') headers.accept = 'application/json';
    if (opts.accept === 'html') headers.accept = 'text/html,application/xhtml+xml';
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    let body: string | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] ??= 'application/json';
    } else if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const res = await fetch(url, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      redirect: 'manual',
    });
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired =
        attrs.some((a) => /max-age=0\b/i.test(a.trim())) ||
        attrs.some(
          (a) =>
            /^expires=/i.test(a.trim()) &&
            new Date(a.trim().slice(8)).getTime() < Date.now() - 1000 * 3600 * 24 * 365 * 10,
        );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text, setCookies };
  }
  get(path: string, opts: Parameters<Browser['request']>[2] = {}) {
    return this.request('GET', path, opts);
  }
  post(path: string, opts: Parameters<Browser['request']>[2] = {}) {
    return this.request('POST', path, opts);
  }
}

export const DEMO_PASSWORD = 'correct horse battery staple 42';

export function traits(email: string, extra: Record<string, unknown> = {}) {
  return {
    email,
    userServiceID: `usr_${email.split('@')[0]}`,
    name: { first: 'Ada', last: 'Lovelace' },
    onboarding: { isGitUser: false, mfaSetupDeadline: null, gitProviderConnected: false, tosAccepted: true },
    ...extra,
  };
}

/** Creates a password identity through the admin API; returns its id. */
export async function createUser(h: Harness, email: string, password = DEMO_PASSWORD): Promise<string> {
  const created = await createIdentityAdminClient({ baseUrl: h.adminUrl }).createIdentity({
    schema_id: 'default',
    traits: traits(email),
    credentials: { password: { config: { password } } },
    verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
  });
  return created.id;
}

/** Creates a login flow as a SPA would and returns the flow and the masked csrf token. */
export async function newLoginFlow(b: Browser, query = '') {
  const res = await b.get(`/self-service/login/browser${query}`, { accept: 'json' });
  if (res.status !== 200) throw new Error(`flow failed ${res.status} ${res.text}`);
  return { flow: res.body, csrf: csrfOf(res.body) };
}

type FlowKind = 'login' | 'settings' | 'recovery' | 'verification' | 'registration';

/** `GET /self-service/{kind}/browser{query}` as a SPA would (JSON); expects 200 and returns the flow. */
export async function startFlow<F>(b: Browser, kind: FlowKind, query = ''): Promise<F> {
  const res = await b.get(`/self-service/${kind}/browser${query}`, { accept: 'json' });
  expect(res.status, res.text).toBe(200);
  return res.body as F;
}

/** `POST /self-service/{kind}?flow=` with a JSON body, asking for JSON. */
export function submitFlow(b: Browser, kind: FlowKind, flow: { id: string }, json: Record<string, unknown>) {
  return b.post(`/self-service/${kind}?flow=${flow.id}`, { json, accept: 'json' });
}

/** The ids of a flow's `ui.messages`. */
export const messageIds = (f: { ui: { messages?: { id: number }[] } }) =>
  (f.ui.messages ?? []).map((m) => m.id);

export function csrfOf(flow: { ui: { nodes: { attributes: object }[] } }): string {
  const n = flow.ui.nodes.find((x) => (x.attributes as { name?: string }).name === 'csrf_token');
  return String((n?.attributes as { value?: unknown } | undefined)?.value ?? '');
}

export async function login(b: Browser, identifier: string, password = DEMO_PASSWORD, query = '') {
  const { flow, csrf } = await newLoginFlow(b, query);
  return submitFlow(b, 'login', flow, { method: 'password', identifier, password, csrf_token: csrf });
}

/** The TOTP secret a settings flow offers for linking (the text of its `totp_secret_key` node). */
export function totpSecretOf(flow: { ui: { nodes: { attributes: object }[] } }): string {
  const node = flow.ui.nodes.find((n) => (n.attributes as { id?: string }).id === 'totp_secret_key');
  const secret = (node?.attributes as { text?: { text?: string } } | undefined)?.text?.text;
  if (!secret) throw new Error('the settings flow offers no TOTP secret');
  return secret;
}

/** Links an authenticator app in a new settings flow of the signed-in browser `b`. */
export async function linkTotp(h: Harness, b: Browser): Promise<{ secret: string; res: Res }> {
  const flow = await startFlow<{ id: string; ui: { nodes: { attributes: object }[] } }>(b, 'settings');
  const secret = totpSecretOf(flow);
  const res = await submitFlow(b, 'settings', flow, {
    method: 'totp',
    totp_code: totpCodeAt(secret, h.clock.now()),
    csrf_token: csrfOf(flow),
  });
  return { secret, res };
}
