import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, createDb, sql } from '@acme/db';
import { seedDemo } from '@acme/users';
import { startProcessCluster, type ClusterOptions, type RunningCluster } from '@acme/cluster/system';
import type { Ports } from '@acme/system-shape';
import { startCluster as startPostgres, type Cluster } from '@acme/cluster/postgres';
import { freePorts } from './ports.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/**
 * The backup and restore drill of docs/deploy.md (PostgreSQL only, `*.pg.int.test.ts`): a
 * database in use is dumped with pg_dump, restored with pg_restore into a fresh PostgreSQL server,
 * and the services are started on it with the same secrets (the admin key here; in production also
 * IDENTITY_CODE_SECRET and SSO_SECRET_KEY) at the same addresses. A session, a refresh token and an
 * API client made before the dump still work, and tokens signed before it still verify: the
 * signing keys are rows of the database.
 */
const adminServer = process.env.TEST_DATABASE_URL!;
const run = promisify(execFile);
const ADMIN_KEY = 'backup-drill-admin-key-0123456789abcdef';

function refresh(issuer: string, refreshToken: string): Promise<Response> {
  return fetch(`${issuer}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'platform',
    }).toString(),
  });
}

function clientCredentials(issuer: string, id: string, secret: string): Promise<Response> {
  return fetch(`${issuer}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
}

describe('backup and restore drill', () => {
  let cluster: RunningCluster | undefined;
  let restoredServer: Cluster | undefined;
  let scratch: string | undefined;
  afterAll(async () => {
    await cluster?.close();
    restoredServer?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  it('a session, a refresh token and an API client made before pg_dump work on a fresh server after pg_restore', async () => {
    const ports: Ports = await freePorts();
    const start = (databaseUrl: string) =>
      startProcessCluster({
        databaseUrl,
        parts: ['identity', 'oauth2', 'users'],
        ports,
        logLevel: 'warn',
        adminKey: ADMIN_KEY,
        extraEnv: { MAIL_WORKER: 'false' },
      } satisfies ClusterOptions);
    const sourceUrl = await createDatabase(adminServer);
    cluster = await start(sourceUrl);
    const { urls } = cluster;
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

    // Before the dump: a signed-in browser, its tokens, and an API client with its secret.
    const { organisationId } = await seedDemo(urls.usersAdmin, ADMIN_KEY);
    const { jar, redirect, verifier } = await passwordAccepted(urls);
    const whoamiBefore = await jar.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoamiBefore.res.status).toBe(200);
    const callback = await jar.navigateToApp(redirect);
    const token = await exchangeCode(urls, callback.searchParams.get('code')!, verifier);
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string; refresh_token: string };
    const created = await fetch(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ organisationId, name: 'nightly export', scopeGroups: ['research'] }),
    });
    expect(created.status).toBe(201);
    const client = (await created.json()) as { id: string; clientSecret: string };
    const jwksBefore = (await (
      await fetch(`${urls.oauth2Public}/.well-known/jwks.json`)
    ).json()) as JSONWebKeySet;

    // The dump, taken while the services run (pg_dump reads one consistent snapshot).
    scratch = await mkdtemp(join(tmpdir(), 'backup-drill-'));
    const dump = join(scratch, 'account.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, sourceUrl]);
    await cluster.close();
    cluster = undefined;

    // A fresh server: nothing of the old one but the dump.
    restoredServer = await startPostgres();
    const restoredUrl = await createDatabase(restoredServer.url);
    await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${restoredUrl}`, dump]);
    cluster = await start(restoredUrl);
    const restored = cluster.urls;
    expect(restored).toEqual(urls);
    const db = await createDb({ url: restoredUrl });
    const onNewServer = (await sql<{ port: number }>`select inet_server_port() as port`.execute(db.kysely))
      .rows[0]!.port;
    await db.close();
    expect(String(onNewServer)).toBe(new URL(restoredServer.url).port);

    // The session: the same browser is still signed in, as the same person.
    const whoamiAfter = await jar.fetch(`${restored.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoamiAfter.res.status).toBe(200);
    expect((whoamiAfter.body as { identity: { id: string } }).identity.id).toBe(
      (whoamiBefore.body as { identity: { id: string } }).identity.id,
    );
    // The signing keys: a token signed before the dump verifies against the restored JWKS.
    const jwksAfter = (await (
      await fetch(`${restored.oauth2Public}/.well-known/jwks.json`)
    ).json()) as JSONWebKeySet;
    expect(jwksAfter.keys.map((k) => k.kid)).toContain(decodeProtectedHeader(tokens.access_token).kid);
    expect(jwksAfter.keys.map((k) => k.kid).sort()).toEqual(jwksBefore.keys.map((k) => k.kid).sort());
    await jwtVerify(tokens.access_token, createLocalJWKSet(jwksAfter), { issuer: restored.oauth2Public });
    // The refresh token.
    const refreshed = await refresh(restored.oauth2Public, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    // The API client and its secret.
    const api = await clientCredentials(restored.oauth2Public, client.id, client.clientSecret);
    expect(api.status).toBe(200);
  }, 300_000);
});
