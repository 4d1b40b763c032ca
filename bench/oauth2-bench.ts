import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { createDb, migrate, sql, type Database } from '@acme/db';
import { createApp, loadConfig, migrations } from '@acme/oauth2';
import { freePortsApart } from '@acme/cluster/free-ports';
import { startLoadBalancer } from '@acme/cluster/nginx-process';
import { startProcessCluster } from '@acme/cluster/system';
import { runLoadChild } from './load/child.ts';
import { CLIENT_ID, listen, plainProvider, REDIRECT_URI, RESOURCE } from './plain-provider.ts';
/**
 * `POST /oauth2/token` workloads (authorization code + PKCE, and refresh with rotation), on our
 * authorization server (PGlite, in process) and, in the same run, on a plain oidc-provider 9 (minimal
 * config, same client, same JWT access token + ID token + refresh token) on the same storage: a
 * PGlite database of its own behind the same adapter (`oauth2_models`), so that the ratio compares
 * what we add to the library, not storage against memory. The plain provider on its in-memory
 * adapter runs too, as the storage-free reference.
 *
 * Codes and refresh tokens are single use, so each request needs its own. For our server one
 * code is minted through the real flow (authorize → admin login accept → consent accept); its
 * stored record is then cloned, in process and untimed, into a batch of codes (refresh tokens
 * likewise from the first exchange). Batches run one after another, each
 * request taking the next credential, until `durationSec` of timed load has run. The load comes
 * from `connections` concurrent keep-alive clients (autocannon cannot hand each request a
 * different single-use body and stop exactly when they run out). Both servers
 * are measured the same way. Latencies are recorded per request by a load generator in its own
 * process on the other core (see load/child.ts).
 * `BENCH_OAUTH2_OURS_ONLY=1` skips the plain provider (for profiling).
 */

const BATCH = 250;

/** Where a target keeps its records: PGlite in process, or a database of its own on a PostgreSQL server. */
export type Storage =
  | { kind: 'pglite' }
  | { kind: 'postgres'; serverUrl: string; instances: 1 | 2 }
  /** A database the caller made (and closes): the scale bench's seeded one. */
  | { kind: 'seeded'; db: Database };

interface Target {
  name: string;
  url: string;
  /** The token endpoint path (Hydra's `/oauth2/token` for ours, the library default for plain). */
  tokenPath: string;
  /** A provider on the target's storage, in this process: it mints the single-use credentials. */
  provider: Provider;
  /** With two instances behind nginx: the first instance itself, past nginx. */
  direct?: string;
  /** Fields of a code / refresh token belonging to one live grant. */
  codeTemplate: Record<string, unknown>;
  refreshTemplate: Record<string, unknown>;
  close(): Promise<void>;
}

interface Figures {
  requestsPerSec: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  requests: number;
  non2xx: number;
  errors: number;
  timedSec: number;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** BENCH_ACCESS_TOKEN_ALG (ES256 or RS256): our access tokens' algorithm, to compare them (ADR 0017). */
const ALG_ENV: Record<string, string> = process.env.BENCH_ACCESS_TOKEN_ALG
  ? { OAUTH2_ACCESS_TOKEN_ALG: process.env.BENCH_ACCESS_TOKEN_ALG }
  : {};

/** Loopback address instead of `localhost` (which may resolve to ::1 where nothing listens). */
const ipv4 = (url: string) => url.replace('//localhost:', '//127.0.0.1:');

let databases = 0;
/** A new empty database on the PostgreSQL server (one per target, so that no target reads another's rows). */
async function freshDatabase(serverUrl: string): Promise<{ url: string; db: Database }> {
  const name = `bench_${process.pid}_${(databases += 1)}`;
  const server = await createDb({ url: serverUrl, poolMax: 1, preparedPerConnection: 0 });
  try {
    await sql.raw(`create database ${name}`).execute(server.kysely);
  } finally {
    await server.close();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), db: await createDb({ url: url.toString() }) };
}

function cookieJar() {
  const jar = new Map<string, string>();
  return {
    async get(url: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
      const res = await fetch(url, { ...init, headers, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) {
        const pair = line.split(';')[0] ?? '';
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      return new URL(res.headers.get('location') ?? '', url);
    },
  };
}

async function putJson(url: string, body: unknown): Promise<{ redirect_to: string }> {
  const res = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${res.status}`);
  return (await res.json()) as { redirect_to: string };
}

/** One code through the real flow (authorize → admin login accept → consent accept → callback). */
async function realCode(url: string, adminUrl: string, issuer: string) {
  const { verifier, challenge } = pkce();
  const authorize = new URL(`${url}/oauth2/auth`);
  for (const [k, v] of Object.entries({
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    state: randomBytes(12).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }))
    authorize.searchParams.set(k, v);
  const browser = cookieJar();
  const local = (u: string) => u.replace(issuer, url);
  const login = await browser.get(authorize.toString());
  const accepted = await putJson(
    `${adminUrl}/admin/oauth2/auth/requests/login/accept?login_challenge=${login.searchParams.get('login_challenge')}`,
    { subject: 'bench-identity', remember: true },
  );
  const consent = await browser.get(local(accepted.redirect_to));
  const consented = await putJson(
    `${adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consent.searchParams.get('consent_challenge')}`,
    {
      grant_scope: ['openid', 'offline_access'],
      session: {
        access_token: { user: { authenticationMode: 'ory' }, products: ['platform'], scopeGroups: [] },
      },
    },
  );
  const callback = await browser.get(local(consented.redirect_to));
  const code = callback.searchParams.get('code');
  if (!code?.startsWith('ory_ac_')) throw new Error('bench: no code from the real flow');
  return { code, verifier };
}

/** Our server on `storage`: in this process, or (PostgreSQL, 2 instances) the cluster's processes behind nginx. */
export async function startOurs(storage: Storage): Promise<Target> {
  const cleanup: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };
  try {
    let url: string;
    let adminUrl: string;
    let provider: Provider;
    let issuer: string;
    let direct: string | undefined;
    if (storage.kind === 'postgres' && storage.instances === 2) {
      const fresh = await freshDatabase(storage.serverUrl);
      cleanup.push(() => fresh.db.close());
      const [oauth2Public, oauth2Admin] = await freePortsApart(2);
      const cluster = await startProcessCluster({
        databaseUrl: fresh.url,
        parts: ['oauth2'],
        instances: 2,
        ports: { oauth2Public, oauth2Admin },
        // Capacity is measured, so the processes do not shed (plain oidc-provider has no shedding).
        extraEnv: { ...ALG_ENV, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' },
      });
      cleanup.push(() => cluster.close());
      issuer = cluster.urls.oauth2Public;
      url = ipv4(issuer);
      adminUrl = ipv4(cluster.urls.oauth2Admin);
      direct = `http://127.0.0.1:${cluster.instancePorts.get('oauth2-1')!.oauth2Public}`;
      // Mints credentials into the same database; it serves nothing.
      const minting = await createApp({
        config: loadConfig({ OAUTH2_PUBLIC_URL: issuer, ...ALG_ENV }),
        db: fresh.db,
        logger: false,
      });
      provider = minting.provider;
    } else {
      const db =
        storage.kind === 'seeded'
          ? storage.db
          : storage.kind === 'postgres'
            ? (await freshDatabase(storage.serverUrl)).db
            : await createDb();
      if (storage.kind !== 'seeded') cleanup.push(() => db.close());
      await migrate(db, 'oauth2', migrations);
      const publicServer = createServer();
      url = await listen(publicServer);
      cleanup.push(async () => {
        publicServer.closeAllConnections();
        await new Promise<void>((resolve) => publicServer.close(() => resolve()));
      });
      issuer = url.replace('127.0.0.1', 'localhost');
      const app = await createApp({
        config: loadConfig({ OAUTH2_PUBLIC_URL: issuer, ...ALG_ENV }),
        db,
        logger: false,
      });
      publicServer.on('request', app.handler);
      await app.admin.listen({ port: 0, host: '127.0.0.1' });
      cleanup.push(() => app.admin.close());
      adminUrl = `http://127.0.0.1:${(app.admin.server.address() as AddressInfo).port}`;
      provider = app.provider;
    }
    const { code, verifier } = await realCode(url, adminUrl, issuer);
    const stored = await provider.AuthorizationCode.find(code);
    if (!stored) throw new Error('bench: code not stored');
    const codeTemplate = pick(stored);
    const exchanged = await exchange(url, code, verifier);
    const refresh = await provider.RefreshToken.find(exchanged.refresh_token);
    if (!refresh) throw new Error('bench: refresh token not stored');
    return {
      name: 'ours',
      url,
      ...(direct ? { direct } : {}),
      tokenPath: '/oauth2/token',
      provider,
      codeTemplate,
      refreshTemplate: pick(refresh),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

const PEER = 'plain oidc-provider';
const PEER_IN_MEMORY = 'plain oidc-provider, memory adapter';

/** A plain instance as a process of its own, on `port`; resolves once it listens. */
async function spawnPlain(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${import.meta.dirname}/plain-provider.ts`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`plain provider exited ${code}`)));
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('"ready"')) resolve();
    });
  });
  return child;
}

/**
 * A plain oidc-provider 9 with the same client and token formats; grant made in process. `storage`
 * 'memory' gives it the library's own adapter; otherwise our adapter on a database of its own
 * (PGlite, or PostgreSQL as one in-process instance or two processes behind nginx).
 */
async function startPlain(storage: Storage | 'memory'): Promise<Target> {
  const cleanup: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };
  try {
    let db: Database | undefined;
    let databaseUrl = '';
    if (storage !== 'memory') {
      if (storage.kind === 'postgres') {
        const fresh = await freshDatabase(storage.serverUrl);
        ({ db, url: databaseUrl } = fresh);
      } else db = await createDb();
      const opened = db;
      cleanup.push(() => opened.close());
      await migrate(db, 'oauth2', migrations);
    }
    let url: string;
    let provider: Provider;
    if (storage !== 'memory' && storage.kind === 'postgres' && storage.instances === 2) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const jwks = {
        keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'plain' }],
      };
      const ports = await freePortsApart(2);
      const proxy = await startLoadBalancer(ports.map((p) => `http://127.0.0.1:${p}`));
      cleanup.push(() => proxy.close());
      for (const port of ports) {
        const child = await spawnPlain({
          DATABASE_URL: databaseUrl,
          PLAIN_PORT: String(port),
          PLAIN_ISSUER: proxy.url,
          PLAIN_JWKS: JSON.stringify(jwks),
        });
        cleanup.push(async () => {
          child.kill('SIGTERM');
          await new Promise((r) => child.once('exit', r));
        });
      }
      url = ipv4(proxy.url);
      provider = plainProvider(proxy.url, db, jwks);
    } else {
      const server = createServer();
      url = await listen(server);
      cleanup.push(async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });
      provider = plainProvider(url.replace('127.0.0.1', 'localhost'), db);
      server.on('request', provider.callback());
    }
    const client = await provider.Client.find(CLIENT_ID);
    const grant = new provider.Grant({ accountId: 'bench-identity', clientId: CLIENT_ID });
    grant.addOIDCScope('openid offline_access');
    grant.addResourceScope(RESOURCE, 'openid offline_access');
    const grantId = await grant.save();
    const common = {
      client,
      grantId,
      accountId: 'bench-identity',
      scope: 'openid offline_access',
      resource: RESOURCE,
      authTime: Math.floor(Date.now() / 1000),
      expiresWithSession: false,
    };
    return {
      name: db ? PEER : PEER_IN_MEMORY,
      url,
      tokenPath: '/token',
      provider,
      codeTemplate: { ...common, redirectUri: REDIRECT_URI, codeChallengeMethod: 'S256' },
      refreshTemplate: { ...common, gty: 'authorization_code' },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

const PAYLOAD_FIELDS = [
  'accountId',
  'acr',
  'amr',
  'authTime',
  'claims',
  'expiresWithSession',
  'grantId',
  'gty',
  'nonce',
  'redirectUri',
  'codeChallengeMethod',
  'resource',
  'scope',
  'sessionUid',
  'sid',
] as const;

function pick(model: object): Record<string, unknown> {
  const source = model as Record<string, unknown>;
  const out: Record<string, unknown> = { clientId: source.clientId };
  for (const key of PAYLOAD_FIELDS) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

async function exchange(url: string, code: string, verifier: string) {
  const res = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: CLIENT_ID,
    }),
  });
  if (!res.ok) throw new Error(`bench: exchange ${res.status} ${await res.text()}`);
  return (await res.json()) as { refresh_token: string };
}

/** Untimed: `count` request bodies, each with its own fresh credential. */
async function mintBodies(target: Target, kind: 'code' | 'refresh', count: number): Promise<string[]> {
  const client = await target.provider.Client.find(CLIENT_ID);
  const bodies: string[] = [];
  for (let i = 0; i < count; i += 1) {
    if (kind === 'code') {
      const { verifier, challenge } = pkce();
      const code = new target.provider.AuthorizationCode({
        ...target.codeTemplate,
        client,
        codeChallenge: challenge,
      } as ConstructorParameters<Provider['AuthorizationCode']>[0]);
      const value = await code.save();
      bodies.push(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: value,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
          client_id: CLIENT_ID,
        }).toString(),
      );
    } else {
      const token = new target.provider.RefreshToken({
        ...target.refreshTemplate,
        client,
      } as ConstructorParameters<Provider['RefreshToken']>[0]);
      const value = await token.save();
      bodies.push(
        new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: value,
          client_id: CLIENT_ID,
        }).toString(),
      );
    }
  }
  return bodies;
}

/** Sends every body once over `connections` keep-alive connections, from a load child; records each latency. */
function runBatch(target: Target, bodies: string[], connections: number) {
  return runLoadChild<{ latencies: number[]; non2xx: number; errors: number; seconds: number }>(
    'post-bodies',
    { url: target.url, path: target.tokenPath, bodies, connections },
  );
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? 0) * 100) / 100;
}

export async function measure(
  target: Target,
  kind: 'code' | 'refresh',
  opts: { durationSec: number; connections: number },
) {
  await runBatch(target, await mintBodies(target, kind, BATCH), opts.connections); // warm-up
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let timed = 0;
  while (timed < opts.durationSec) {
    const bodies = await mintBodies(target, kind, BATCH);
    const batch = await runBatch(target, bodies, opts.connections);
    latencies.push(...batch.latencies);
    non2xx += batch.non2xx;
    errors += batch.errors;
    timed += batch.seconds;
  }
  latencies.sort((a, b) => a - b);
  const figures: Figures = {
    // Tokens issued per second: failed requests (non-2xx, errors) are not served.
    requestsPerSec: Math.round((latencies.length - non2xx - errors) / timed),
    latencyMs: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: percentile(latencies, 100),
    },
    requests: latencies.length,
    non2xx,
    errors,
    timedSec: Math.round(timed * 10) / 10,
  };
  return figures;
}

/**
 * Refresh with rotation on the authorization server's two processes behind nginx, on a database of
 * its own on `serverUrl`: through nginx and, in the same run, against the first process directly.
 */
export async function benchRefreshFrontDoor(
  serverUrl: string,
  opts: { durationSec: number; connections: number },
): Promise<{ direct: Figures; nginx: Figures }> {
  const target = await startOurs({ kind: 'postgres', serverUrl, instances: 2 });
  try {
    return {
      direct: await measure({ ...target, url: target.direct! }, 'refresh', opts),
      nginx: await measure(target, 'refresh', opts),
    };
  } finally {
    await target.close();
  }
}

export async function benchOAuth2(opts: {
  durationSec: number;
  connections: number;
  /** Default PGlite (with the memory-adapter reference); PostgreSQL as one process or 2 instances. */
  storage?: Storage;
}): Promise<Record<string, unknown>> {
  const storage: Storage = opts.storage ?? { kind: 'pglite' };
  const results: Record<string, Record<string, Figures>> = { authorizationCode: {}, refresh: {} };
  const starts = process.env.BENCH_OAUTH2_OURS_ONLY
    ? [() => startOurs(storage)]
    : [
        () => startOurs(storage),
        () => startPlain(storage),
        ...(storage.kind === 'pglite' ? [() => startPlain('memory')] : []),
      ];
  for (const start of starts) {
    const target = await start();
    try {
      results.authorizationCode![target.name] = await measure(target, 'code', opts);
      results.refresh![target.name] = await measure(target, 'refresh', opts);
    } finally {
      await target.close();
    }
  }
  const ratio = (w: Record<string, Figures>) =>
    w.ours && w[PEER] ? Math.round((w.ours.requestsPerSec / w[PEER].requestsPerSec) * 100) / 100 : null;
  const where =
    storage.kind !== 'postgres'
      ? 'in process, ours on PGlite vs plain oidc-provider 9 on the same storage (PGlite of its own, same adapter; the ratio) and on its memory adapter (reference)'
      : storage.instances === 1
        ? 'PostgreSQL, one in-process instance each; ours vs plain oidc-provider 9 on the same server (a database of its own, same adapter)'
        : "PostgreSQL, 2 instances each behind nginx (ours: the cluster's oauth2 processes; plain: 2 processes of bench/plain-provider.ts), a database each on the same server";
  return {
    method: `POST /oauth2/token, ${where}. Batches of single-use credentials minted untimed. Same client, PKCE S256, JWT access token + ID token + rotated refresh token.`,
    batchSize: BATCH,
    authorizationCode: { ...results.authorizationCode, oursVsPlain: ratio(results.authorizationCode!) },
    refresh: { ...results.refresh, oursVsPlain: ratio(results.refresh!) },
  };
}
