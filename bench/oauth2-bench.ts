import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';
import { createDb, migrate } from '@acme/db';
import { createApp, loadConfig, migrations } from '@acme/oauth2';
import { createAdapterRegistry } from '../services/oauth2/src/adapter/postgres-adapter.ts';
import { systemClock } from '@acme/db/clock';
import { runLoadChild } from './load/child.ts';

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
const RESOURCE = 'urn:acme:api';
const CLIENT_ID = 'platform';
const ORIGIN = 'http://localhost:4000';
const REDIRECT_URI = `${ORIGIN}/account/callback`;

interface Target {
  name: string;
  url: string;
  /** The token endpoint path (Hydra's `/oauth2/token` for ours, the library default for plain). */
  tokenPath: string;
  provider: Provider;
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

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

/** Our server, started in process on PGlite; one code minted through the admin API. */
async function startOurs(): Promise<Target> {
  const db = await createDb();
  await migrate(db, 'oauth2', migrations);
  const publicServer = createServer();
  const url = await listen(publicServer);
  const config = loadConfig({ ISSUER: url.replace('127.0.0.1', 'localhost') });
  const { provider, admin } = await createApp({ config, db, logger: false });
  publicServer.on('request', provider.callback());
  await admin.listen({ port: 0, host: '127.0.0.1' });
  const adminUrl = `http://127.0.0.1:${(admin.server.address() as AddressInfo).port}`;

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
  const local = (u: string) => u.replace(config.issuer, url);
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
  const stored = await provider.AuthorizationCode.find(code);
  if (!stored) throw new Error('bench: code not stored');
  const codeTemplate = pick(stored);
  const exchanged = await exchange(url, code, verifier);
  const refresh = await provider.RefreshToken.find(exchanged.refresh_token);
  if (!refresh) throw new Error('bench: refresh token not stored');

  return {
    name: 'ours',
    url,
    tokenPath: '/oauth2/token',
    provider,
    codeTemplate,
    refreshTemplate: pick(refresh),
    async close() {
      await admin.close();
      publicServer.closeAllConnections();
      await new Promise<void>((resolve) => publicServer.close(() => resolve()));
      await db.close();
    },
  };
}

const PEER = 'plain oidc-provider';
const PEER_IN_MEMORY = 'plain oidc-provider, memory adapter';

/**
 * A plain oidc-provider 9 with the same client and token formats; grant made in process. `storage`
 * 'same' gives it our adapter on a PGlite database of its own; 'memory' the library's own adapter.
 */
async function startPlain(storage: 'same' | 'memory'): Promise<Target> {
  const db = storage === 'same' ? await createDb() : undefined;
  if (db) await migrate(db, 'oauth2', migrations);
  const server = createServer();
  const url = await listen(server);
  const configuration: Configuration = {
    ...(db
      ? {
          adapter: createAdapterRegistry({
            db,
            clock: systemClock,
            graceSeconds: loadConfig({ ISSUER: url }).refreshGraceSeconds, // as ours
          }).factory,
        }
      : {}),
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'openid offline_access',
      },
    ],
    features: {
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'openid offline_access',
          audience: RESOURCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
        }),
      },
    },
  };
  const provider = new Provider(url.replace('127.0.0.1', 'localhost'), configuration);
  server.on('request', provider.callback());
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
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db?.close();
    },
  };
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

async function measure(
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
    requestsPerSec: Math.round(latencies.length / timed),
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

export async function benchOAuth2(opts: {
  durationSec: number;
  connections: number;
}): Promise<Record<string, unknown>> {
  const results: Record<string, Record<string, Figures>> = { authorizationCode: {}, refresh: {} };
  const starts = process.env.BENCH_OAUTH2_OURS_ONLY
    ? [startOurs]
    : [startOurs, () => startPlain('same'), () => startPlain('memory')];
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
  return {
    method:
      'POST /oauth2/token, in process, batches of single-use credentials minted untimed; ours on PGlite vs plain oidc-provider 9 on the same storage (PGlite of its own, same adapter; the ratio) and on its memory adapter (reference). Same client, PKCE S256, JWT access token + ID token + rotated refresh token.',
    batchSize: BATCH,
    authorizationCode: { ...results.authorizationCode, oursVsPlain: ratio(results.authorizationCode!) },
    refresh: { ...results.refresh, oursVsPlain: ratio(results.refresh!) },
  };
}
