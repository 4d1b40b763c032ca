import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, createDb, sql, type Database } from '@acme/db';
import { createSecretBox } from '@acme/service-kit/secret-box';
import { DEMO_SSO_PROVIDER, seedDemo } from '@acme/users';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import type { Listener } from '@acme/system-shape';
import { csrfOf } from '../../../services/identity/test/harness.ts';
import { Jar } from '../../../services/users/test/jar.ts';
import { freePorts } from './ports.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/**
 * Every secret rotated on a running system (PostgreSQL only, `*.pg.int.test.ts`): two instances of
 * the identity service, the authorization server and the user service behind nginx, each secret a
 * list whose first entry signs or encrypts and whose others are still accepted. Three steps (the new
 * secret added second, made first, the old one dropped), each rolled out by restarting the
 * instances one at a time with the new environment, while people keep signing in with a password,
 * exchanging the code (PKCE), asking whoami and refreshing. No request fails at any point, and the
 * sessions, refresh tokens and codes made before each step still work after it. Per secret:
 * - the admin keys: both keys open each admin API until the old one is dropped, which is then refused;
 * - IDENTITY_CODE_SECRET: a recovery code mailed before the step is accepted after it;
 * - SSO_SECRET_KEY: the organisation's SSO client secret opens at each step, sealed again under the
 *   new key once it is first, and still opens after the old key is dropped;
 * - OAUTH2_KEYS_SECRET: the signing keys row is sealed again under the new key once it is first, and
 *   tokens signed before still verify.
 */
const adminServer = process.env.TEST_DATABASE_URL!;
const PARTS = ['identity', 'oauth2', 'users'] as const;
const INSTANCES = PARTS.flatMap((part) => [`${part}-1`, `${part}-2`]);
const SSO_CLIENT_SECRET = 'globex-client-secret-at-the-idp';

const secret = (name: string, generation: string) => `${generation}-${name}-0123456789abcdef0123456789`;
/** The secret settings rotated, and the admin API each admin key opens. */
const ADMIN_KEYS = {
  IDENTITY_ADMIN_KEY: { listener: 'identityAdmin', probe: ['GET', '/admin/identities'] },
  OAUTH2_ADMIN_KEY: { listener: 'oauth2Admin', probe: ['POST', '/admin/oauth2/introspect'] },
  USERS_ADMIN_KEY: { listener: 'usersAdmin', probe: ['GET', '/admin/organisations'] },
} as const satisfies Record<string, { listener: Listener; probe: readonly [string, string] }>;
const SECRETS = [...Object.keys(ADMIN_KEYS), 'IDENTITY_CODE_SECRET', 'SSO_SECRET_KEY', 'OAUTH2_KEYS_SECRET'];

type Step = 'before' | 'new second' | 'new first' | 'old dropped';
function environment(step: Step): Record<string, string> {
  const lists: Record<Step, (old: string, next: string) => string> = {
    before: (old) => old,
    'new second': (old, next) => `${old},${next}`,
    'new first': (old, next) => `${next},${old}`,
    'old dropped': (_old, next) => next,
  };
  return Object.fromEntries(
    SECRETS.map((name) => [name, lists[step](secret(name, 'old'), secret(name, 'new'))]),
  );
}

interface Signed {
  jar: Jar;
  refreshToken: string;
}

/** The running system and its database, and the step every instance has reached. */
let cluster: RunningCluster;
let db: Database;
let step: Step = 'before';

const urls = () => cluster.urls;
/** The key a caller holds at this step: the first of the list. */
const callerKey = (name: string) => environment(step)[name]!.split(',')[0]!;

/** The core path once: password sign-in, code exchange with PKCE, whoami, refresh. */
async function signIn(track: (phase: string) => void = () => undefined): Promise<Signed> {
  track('password sign-in');
  const { jar, redirect, verifier } = await passwordAccepted(urls());
  track('consent and callback');
  const callback = await jar.navigateToApp(redirect);
  track('code exchange');
  const token = await exchangeCode(urls(), callback.searchParams.get('code')!, verifier);
  expect(token.status, await token.clone().text()).toBe(200);
  const { refresh_token: refreshToken } = (await token.json()) as { refresh_token: string };
  track('whoami');
  await whoami(jar);
  track('refresh');
  return { jar, refreshToken: await refresh(refreshToken) };
}
async function whoami(jar: Jar): Promise<void> {
  const me = await jar.fetch(`${urls().identityPublic}/sessions/whoami`, {
    headers: { accept: 'application/json' },
  });
  expect(me.res.status, JSON.stringify(me.body)).toBe(200);
  expect(me.body.identity.traits.email).toBe('ada@acme.test');
}
async function refresh(refreshToken: string): Promise<string> {
  const res = await fetch(`${urls().oauth2Public}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'platform',
    }).toString(),
  });
  const body = (await res.json()) as { refresh_token: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.refresh_token;
}

/** A recovery flow with its code mailed (the code is stored as an HMAC under IDENTITY_CODE_SECRET). */
async function recoveryCodeSent(): Promise<{
  flow: { id: string; ui: { nodes: { attributes: object }[] } };
  code: string;
  jar: Jar;
}> {
  const jar = new Jar(urls().platform);
  const started = await jar.fetch(`${urls().identityPublic}/self-service/recovery/browser`, {
    headers: { accept: 'application/json' },
  });
  expect(started.res.status).toBe(200);
  const sent = await jar.fetch(`${urls().identityPublic}/self-service/recovery?flow=${started.body.id}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    json: { method: 'code', email: 'ada@acme.test', csrf_token: csrfOf(started.body) },
  });
  expect(sent.res.status, JSON.stringify(sent.body)).toBe(200);
  const { rows } = await sql<{ text: string }>`
    select text from mail_outbox where "to" = 'ada@acme.test' order by created_at desc, id desc limit 1
  `.execute(db.kysely);
  return { flow: sent.body, code: rows[0]!.text.match(/\b(\d{6})\b/)![1]!, jar };
}
async function recoveryAccepted(sent: Awaited<ReturnType<typeof recoveryCodeSent>>): Promise<void> {
  const res = await sent.jar.fetch(`${urls().identityPublic}/self-service/recovery?flow=${sent.flow.id}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    json: { method: 'code', code: sent.code, csrf_token: csrfOf(sent.flow) },
  });
  expect(res.res.status, JSON.stringify(res.body)).toBe(422);
}

/** Status of an admin API request with `key`, on each instance in turn (nginx alternates). */
async function adminStatuses(name: keyof typeof ADMIN_KEYS, key: string): Promise<number[]> {
  const { listener, probe } = ADMIN_KEYS[name];
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${urls()[listener]}${probe[1]}`, {
      method: probe[0],
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      ...(probe[0] === 'POST' ? { body: 'token=not-a-token' } : {}),
    });
    await res.body?.cancel();
    statuses.push(res.status);
  }
  return statuses;
}

/** The SSO provider as the identity service reads it (the client secret opened with SSO_SECRET_KEY). */
async function ssoClientSecret(): Promise<string> {
  const res = await fetch(`${urls().usersAdmin}/admin/sso/providers/${DEMO_SSO_PROVIDER}`, {
    headers: { authorization: `Bearer ${callerKey('USERS_ADMIN_KEY')}` },
  });
  const body = (await res.json()) as { clientSecret?: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.clientSecret!;
}
const storedSso = async () =>
  (
    await sql<{
      v: string;
    }>`select client_secret_enc as v from sso_providers where provider_id = ${DEMO_SSO_PROVIDER}`.execute(
      db.kysely,
    )
  ).rows[0]!.v;
const storedKeys = async () =>
  (await sql<{ v: { sealed: string } }>`select jwks as v from oauth2_keys`.execute(db.kysely)).rows[0]!.v
    .sealed;

/** The core path, over and over, until stopped; every failure is kept. */
function traffic() {
  const failures: string[] = [];
  let rounds = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      let phase = '';
      try {
        await signIn((p) => (phase = p));
        rounds++;
      } catch (error) {
        failures.push(`[${step}] ${phase}: ${(error as Error).message.slice(0, 400)}`);
      }
    }
  })();
  return {
    failures,
    rounds: () => rounds,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** What the instances logged at warn and above (they run at LOG_LEVEL=warn), for a failure's message. */
const problems = () =>
  cluster.processes
    .flatMap((p) =>
      p
        .output()
        .split('\n')
        .filter(Boolean)
        .map((line) => `${p.name}: ${line.slice(0, 300)}`),
    )
    .slice(-40)
    .join('\n');

const STEPS: Step[] = ['new second', 'new first', 'old dropped'];

describe('every secret rotated in three steps on a running system', () => {
  // The test's client opens a connection per request. A browser retries a request on a kept-alive
  // connection that the load balancer closes as it reloads (which it does to take an instance out,
  // as an orchestrator would); Node's fetch does not, so it does not keep connections alive here.
  const browserFetch = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('connection', 'close');
      return browserFetch(input, { ...init, headers });
    };
  });
  afterAll(() => {
    globalThis.fetch = browserFetch;
  });

  beforeAll(async () => {
    const databaseUrl = await createDatabase(adminServer);
    db = await createDb({ url: databaseUrl });
    cluster = await startProcessCluster({
      databaseUrl,
      parts: [...PARTS],
      instances: 2,
      ports: await freePorts(),
      logLevel: 'warn',
      runtime: 'compiled',
      // Mail stays in the outbox table, where the test reads the recovery codes.
      extraEnv: { MAIL_WORKER: 'false', ...environment('before') },
    });
    await seedDemo(cluster.urls.usersAdmin, secret('USERS_ADMIN_KEY', 'old'), {
      sso: { issuer: 'https://idp.globex.test', clientId: 'globex-client', clientSecret: SSO_CLIENT_SECRET },
    });
  }, 300_000);
  afterAll(async () => {
    await cluster?.close();
    await db?.close();
  }, 120_000);

  it('the core path never fails while every secret is rotated, and what was made before each step still works after it', async () => {
    expect(await ssoClientSecret()).toBe(SSO_CLIENT_SECRET);
    for (const name of Object.keys(ADMIN_KEYS) as (keyof typeof ADMIN_KEYS)[]) {
      expect(await adminStatuses(name, secret(name, 'old'))).toEqual([200, 200, 200, 200]);
      expect(await adminStatuses(name, secret(name, 'new'))).toEqual([401, 401, 401, 401]);
    }
    const load = traffic();
    try {
      for (const next of STEPS) {
        // Made before the step: a session and refresh token, a recovery code in flight.
        const made = await signIn();
        const code = await recoveryCodeSent();
        const roundsBefore = load.rounds();
        for (const name of INSTANCES) await cluster.restart(name, environment(next));
        step = next;
        expect(load.failures, `requests failed during "${next}"\n${problems()}`).toEqual([]);
        expect(load.rounds()).toBeGreaterThan(roundsBefore);

        // Sessions, refresh tokens and codes made before the step work after it.
        await whoami(made.jar);
        await refresh(made.refreshToken);
        await recoveryAccepted(code);

        // The admin keys: the new key is accepted from the first step on, the old one until it is dropped.
        for (const name of Object.keys(ADMIN_KEYS) as (keyof typeof ADMIN_KEYS)[]) {
          expect(await adminStatuses(name, secret(name, 'new')), name).toEqual([200, 200, 200, 200]);
          const old = next === 'old dropped' ? 401 : 200;
          expect(await adminStatuses(name, secret(name, 'old')), name).toEqual([old, old, old, old]);
        }
        // SSO_SECRET_KEY and OAUTH2_KEYS_SECRET: opened at every step; sealed under the new key once it is first.
        expect(await ssoClientSecret()).toBe(SSO_CLIENT_SECRET);
        const underNew = next !== 'new second';
        expect(createSecretBox([secret('SSO_SECRET_KEY', 'new')]).isCurrent(await storedSso())).toBe(
          underNew,
        );
        expect(createSecretBox([secret('OAUTH2_KEYS_SECRET', 'new')]).isCurrent(await storedKeys())).toBe(
          underNew,
        );
      }
    } finally {
      await load.stop();
    }
    expect(load.failures).toEqual([]);
    expect(load.rounds()).toBeGreaterThan(10);
  }, 900_000);
});
