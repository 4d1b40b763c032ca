import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@acme/db';
import { seedDemo } from '@acme/users';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * PostgreSQL only (`*.pg.int.test.ts`, the PostgreSQL stage): identity, the authorization server
 * and the user service as three processes from their own entry points on one database, and a user
 * signs in through all three.
 */
const adminServer = process.env.TEST_DATABASE_URL;

describe('identity, oauth2 and users as three processes on one PostgreSQL database', () => {
  let cluster: RunningCluster;

  beforeAll(async () => {
    const databaseUrl = await createDatabase(adminServer!);
    cluster = await startProcessCluster({
      databaseUrl,
      parts: ['identity', 'oauth2', 'users'],
      ports: await freePorts(),
      logLevel: 'warn',
      // No SMTP server here: mail stays queued in the database.
      extraEnv: { MAIL_WORKER: 'false' },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('runs each part in its own process', () => {
    const pids = new Set(cluster.processes.map((p) => p.child.pid));
    expect(pids.size).toBe(3);
    expect(pids.has(process.pid)).toBe(false);
  });

  it('signs a seeded user in through the authorization server and identity, and issues a token', async () => {
    const { urls } = cluster;
    // The demo seed goes through the user service's admin API, which creates identities in
    // the identity process.
    await seedDemo(urls.usersAdmin);
    const { jar, redirect, verifier } = await passwordAccepted(urls);
    const whoami = await jar.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.res.status).toBe(200);

    // The platform app is first-party: the authorization server skips consent and calls back.
    const callback = await jar.navigateToApp(redirect);
    expect(callback.pathname).toBe('/account/callback');
    const token = await exchangeCode(urls, callback.searchParams.get('code')!, verifier);
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims.sub).toBe((whoami.body as any).identity.id);
    // Claims come from the user service's process.
    expect(claims.ext.products).toEqual(['Platform', 'MAGIC']);
  });
});
