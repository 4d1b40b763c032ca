import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@acme/db';
import { seedDemo } from '@acme/users';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/**
 * PostgreSQL only (`*.pg.int.test.ts`): a crash between the login and the callback. Identity, the
 * authorization server and the user service run as their own processes on one database; after the
 * password is accepted, the identity and authorization processes are killed with SIGKILL (no
 * drain, no clean-up) and started again. The user then finishes the sign-in with what the browser
 * holds, and the database holds nothing half-written.
 */
const adminServer = process.env.TEST_DATABASE_URL;

describe('kill -9 of identity and oauth2 between the login and the callback', () => {
  let cluster: RunningCluster;

  beforeAll(async () => {
    const databaseUrl = await createDatabase(adminServer!);
    cluster = await startProcessCluster({
      databaseUrl,
      parts: ['identity', 'oauth2', 'users'],
      ports: await freePorts(),
      logLevel: 'warn',
      extraEnv: { MAIL_WORKER: 'false' },
    });
    await seedDemo(cluster.urls.usersAdmin);
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  async function killHard(name: string): Promise<void> {
    const proc = cluster.processes.find((p) => p.name === name)!;
    const exited = new Promise((resolve) => proc.child.once('exit', resolve));
    proc.child.kill('SIGKILL');
    await exited;
  }

  it('the user finishes the sign-in after both processes are killed and restarted', async () => {
    const { jar, redirect, verifier } = await passwordAccepted(cluster.urls);

    await killHard('identity');
    await killHard('oauth2');
    await cluster.restart('identity');
    await cluster.restart('oauth2');

    // The session and the accepted login survived in the database: the browser resumes.
    const whoami = await jar.fetch(`${cluster.urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.res.status).toBe(200);
    const callback = await jar.navigateToApp(redirect);
    expect(callback.pathname).toBe('/account/callback');
    const code = callback.searchParams.get('code');
    expect(code).toMatch(/^ory_ac_/);
    const token = await exchangeCode(cluster.urls, code!, verifier);
    expect(token.status, await token.clone().text()).toBe(200);
    // The code is single use across the restart too.
    expect((await exchangeCode(cluster.urls, code!, verifier)).status).toBe(400);
  });

  it('nothing half-written remains: the verifier was spent once, and a new sign-in works', async () => {
    const { jar, redirect, verifier } = await passwordAccepted(cluster.urls);
    await killHard('oauth2');
    await cluster.restart('oauth2');
    const first = await jar.navigateToApp(redirect);
    expect(first.searchParams.get('code')).toMatch(/^ory_ac_/);
    expect((await exchangeCode(cluster.urls, first.searchParams.get('code')!, verifier)).status).toBe(200);
    // Following the same accepted login again gives no second code: its one-time verifier was
    // recorded as used, not lost with the process.
    const again = await jar.fetch(redirect);
    expect(again.res.status).toBe(400);
    expect(again.res.headers.get('location')).toBeNull();
  });
});
