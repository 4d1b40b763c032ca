import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDb } from '@acme/db';
import { start as startIdentity } from '@acme/identity';
import {
  createIdentityAdminClient,
  type AdminIdentity,
  type IdentityAdminClient,
} from '@acme/identity-contract/admin-client';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { totpCode } from '@acme/test-kit/totp';
import type { RecordedRequest, StubResponse } from './harness.ts';
import { Jar } from './jar.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** A recovery code the identity service issued to the user service (`POST /admin/recovery/code`). */
interface IssuedRecoveryCode {
  flowId: string;
  identityId: string;
  code: string;
  expiresIn: string | undefined;
}

/**
 * Our real identity service, in process on its own test database and free ports, seen by the user
 * service through a pass-through proxy per API that records every request (so tests can count
 * what the user service asked) and can answer one path with a failure status instead (to test
 * how the user service copes with an identity service that fails).
 */
export interface IdentityUnderTest {
  /** The public API, through the recording proxy: give it to the user service as IDENTITY_PUBLIC_URL. */
  publicUrl: string;
  /** The admin API, through the recording proxy: give it to the user service as IDENTITY_ADMIN_URL. */
  adminUrl: string;
  /** Every request that went through the proxies, oldest first (empty it with `length = 0`). */
  requests: RecordedRequest[];
  /** Every recovery code the admin API issued through the proxy, oldest first. */
  recoveryCodes: IssuedRecoveryCode[];
  /** Path → status: the proxy answers such requests itself with this status (`clear()` to stop). */
  failures: Map<string, number>;
  /**
   * Path (as sent, percent-encoding kept) → what the proxy answers instead of the service: a fixed
   * answer, or one made from the request and, when it calls `forward`, the service's own answer
   * (`clear()` to stop). For answers the real service does not give on its own: a failure of one
   * method, a body that is not JSON, a session signed in by a method the test cannot drive.
   */
  answers: Map<string, InjectedAnswer>;
  /** The admin API's client, straight to the service (not recorded). */
  admin: IdentityAdminClient;
  /** The identity, read from the admin API; throws when there is none. */
  identity(id: string): Promise<AdminIdentity & { traits: any; verifiable_addresses: any[] }>;
  /**
   * Signs the identity in with a password (set through the admin API on first use) and returns the
   * Cookie header a browser would send. `aal2Required`: the identity gets an authenticator app
   * first, so the password-only session this returns must still pass a second factor.
   * `secondFactor`: the same, then the session passes that second factor too (aal2).
   */
  signIn(identityId: string, opts?: { aal2Required?: boolean; secondFactor?: boolean }): Promise<string>;
  /** The session id behind a cookie returned by `signIn`. */
  sessionIdOf(cookie: string): Promise<string>;
  close(): Promise<void>;
}

/** The service's own answer to a request the proxy forwarded. */
interface ForwardedAnswer {
  status: number;
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  body: unknown;
  text: string;
}

type InjectedAnswer =
  | StubResponse
  | ((req: RecordedRequest, forward: () => Promise<ForwardedAnswer>) => StubResponse | Promise<StubResponse>);

export interface IdentityUnderTestOptions {
  /** The admin API then requires `Authorization: Bearer <key>` (the stack's own client sends it). */
  adminKey?: string;
}

const PASSWORD = 'a long passphrase for the identity under test 1';

export async function startIdentityUnderTest(
  options: IdentityUnderTestOptions = {},
): Promise<IdentityUnderTest> {
  const db = await createTestDb();
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  const direct = { public: `http://127.0.0.1:${publicPort}`, admin: `http://127.0.0.1:${adminPort}` };
  const service = await startIdentity({
    db,
    logger: false,
    mailer: createMemoryMailer(),
    env: {
      IDENTITY_PUBLIC_PORT: String(publicPort),
      IDENTITY_ADMIN_PORT: String(adminPort),
      IDENTITY_MANAGEMENT_PORT: '0',
      // The pool's lowered priority would outlive this file in the shared test worker, and on a busy
      // machine starve the next file's hashing (services/identity/src/config.ts IDENTITY_HASH_NICE).
      IDENTITY_HASH_NICE: '0',
      IDENTITY_PUBLIC_URL: direct.public,
      IDENTITY_ADMIN_URL: direct.admin,
      LOG_LEVEL: 'silent',
      ...(options.adminKey === undefined ? {} : { IDENTITY_ADMIN_KEY: options.adminKey }),
    },
  });
  const requests: RecordedRequest[] = [];
  const recoveryCodes: IssuedRecoveryCode[] = [];
  const failures = new Map<string, number>();
  const answers = new Map<string, InjectedAnswer>();
  const onAnswer = (req: RecordedRequest, status: number, body: unknown) => {
    if (req.method !== 'POST' || req.path !== '/admin/recovery/code' || status !== 201) return;
    const sent = req.body as { identity_id: string; expires_in?: string };
    const answer = body as { recovery_link: string; recovery_code: string };
    recoveryCodes.push({
      flowId: new URL(answer.recovery_link).searchParams.get('flow')!,
      identityId: sent.identity_id,
      code: answer.recovery_code,
      expiresIn: sent.expires_in,
    });
  };
  const injected = { failures, answers, onAnswer };
  const publicProxy = await recordingProxy(direct.public, requests, injected);
  const adminProxy = await recordingProxy(direct.admin, requests, injected);
  const admin = createIdentityAdminClient({ baseUrl: direct.admin, adminKey: options.adminKey });
  const withPassword = new Set<string>();

  async function identity(id: string) {
    const found = await admin.getIdentity(id);
    if (!found) throw new Error(`no identity ${id}`);
    return found as AdminIdentity & { traits: any; verifiable_addresses: any[] };
  }

  async function passwordLogin(email: string): Promise<Jar> {
    const jar = new Jar();
    const flow = await jar.fetch(`${direct.public}/self-service/login/browser`, {
      headers: { accept: 'application/json' },
    });
    const submitted = await jar.fetch(`${direct.public}/self-service/login?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow.body) },
    });
    // 422: the session stands at aal1 and the browser is sent on to the second factor.
    const signedIn = submitted.res.status === 200 || submitted.res.status === 422;
    if (!signedIn || !jar.cookies.has('ory_kratos_session')) {
      throw new Error(`password login answered ${submitted.res.status}`);
    }
    return jar;
  }

  /** Links an authenticator app to the signed-in identity; answers its secret. */
  async function linkAuthenticatorApp(jar: Jar): Promise<string> {
    const flow = await jar.fetch(`${direct.public}/self-service/settings/browser`, {
      headers: { accept: 'application/json' },
    });
    const secret = flow.body.ui.nodes.find((n: any) => n.attributes.id === 'totp_secret_key').attributes.text
      .text as string;
    const linked = await jar.fetch(`${direct.public}/self-service/settings?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'totp', totp_code: totpCode(secret), csrf_token: csrfOf(flow.body) },
    });
    if (linked.res.status !== 200) throw new Error(`linking TOTP answered ${linked.res.status}`);
    return secret;
  }

  /** Takes the aal1 session in `jar` to aal2 with a code of the authenticator app. */
  async function secondFactorLogin(jar: Jar, secret: string): Promise<void> {
    const flow = await jar.fetch(`${direct.public}/self-service/login/browser?aal=aal2`, {
      headers: { accept: 'application/json' },
    });
    // Each time step's code is taken once and linking spent the current one: the next step's code
    // is still inside the accepted window of one step either side.
    const code = totpCode(secret, new Date(Date.now() + 30_000));
    const submitted = await jar.fetch(`${direct.public}/self-service/login?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'totp', totp_code: code, csrf_token: csrfOf(flow.body) },
    });
    if (submitted.res.status !== 200) throw new Error(`the TOTP login answered ${submitted.res.status}`);
  }

  return {
    publicUrl: publicProxy.url,
    adminUrl: adminProxy.url,
    requests,
    recoveryCodes,
    failures,
    answers,
    admin,
    identity,
    async signIn(identityId, opts = {}) {
      const { traits } = await identity(identityId);
      if (!withPassword.has(identityId)) {
        // A password sign-in needs a proven address (the identity service's rule since issue 31).
        await admin.patchIdentity(identityId, [
          { op: 'add', path: '/credentials/password/config/password', value: PASSWORD },
          { op: 'replace', path: '/verifiable_addresses/0/verified', value: true },
        ]);
        withPassword.add(identityId);
      }
      let jar = await passwordLogin(traits.email);
      if (opts.aal2Required || opts.secondFactor) {
        const secret = await linkAuthenticatorApp(jar);
        jar = await passwordLogin(traits.email);
        if (opts.secondFactor) await secondFactorLogin(jar, secret);
      }
      return `ory_kratos_session=${jar.cookies.get('ory_kratos_session')!}`;
    },
    async sessionIdOf(cookie) {
      const res = await fetch(`${direct.public}/sessions/whoami`, {
        headers: { cookie, accept: 'application/json' },
      });
      const body = (await res.json()) as { id?: string; error?: { id?: string } };
      if (body.id) return body.id;
      throw new Error(`whoami answered ${res.status}`);
    },
    async close() {
      await publicProxy.close();
      await adminProxy.close();
      await service.close();
      await db.close();
    },
  };
}

function csrfOf(flow: any): string {
  return flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** An HTTP pass-through to `target` that records each request and may answer some paths itself. */
async function recordingProxy(
  target: string,
  requests: RecordedRequest[],
  injected: {
    failures: Map<string, number>;
    answers: Map<string, InjectedAnswer>;
    onAnswer: (req: RecordedRequest, status: number, body: unknown) => void;
  },
): Promise<{ url: string; close(): Promise<void> }> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://proxy');
    const text = raw.toString('utf8');
    let body: unknown;
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    };
    requests.push(recorded);
    const failure = injected.failures.get(url.pathname);
    if (failure !== undefined) {
      res.writeHead(failure, { 'content-type': 'application/json' }).end(JSON.stringify({ error: {} }));
      return;
    }

    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (HOP_BY_HOP.has(name) || value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const forward = async () => {
      const answer = await fetch(`${target}${req.url ?? '/'}`, {
        method: recorded.method,
        headers,
        body: raw.length > 0 ? raw : undefined,
        redirect: 'manual',
      });
      const answerText = await answer.text();
      let parsed: unknown;
      try {
        parsed = answerText ? JSON.parse(answerText) : undefined;
        injected.onAnswer(recorded, answer.status, parsed);
      } catch {
        // not JSON: nothing to note
      }
      return { response: answer, answer: { status: answer.status, body: parsed, text: answerText } };
    };

    const instead = injected.answers.get(url.pathname);
    if (instead !== undefined) {
      const stub =
        typeof instead === 'function'
          ? await instead(recorded, async () => (await forward()).answer)
          : instead;
      if (stub.text !== undefined) {
        res.writeHead(stub.status, { 'content-type': 'text/plain' }).end(stub.text);
      } else if (stub.body === undefined) {
        res.writeHead(stub.status).end();
      } else {
        res.writeHead(stub.status, { 'content-type': 'application/json' }).end(JSON.stringify(stub.body));
      }
      return;
    }

    const { response, answer } = await forward();
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding' && name !== 'set-cookie') out[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) out['set-cookie'] = cookies;
    res.writeHead(answer.status, out).end(answer.text);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
