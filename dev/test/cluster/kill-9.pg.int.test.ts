import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@acme/db';
import { seedDemo, DEMO_PASSWORD } from '@acme/users';
import { csrfOf } from '../../../services/identity/test/harness.ts';
import { Jar } from '../../../services/users/test/jar.ts';
import { platformAuthorizeUrl } from '../../../services/users/test/auth-stack.ts';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';

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

  async function passwordAccepted(jar: Jar): Promise<{ redirect: string; verifier: string }> {
    const { urls } = cluster;
    const { url, verifier } = platformAuthorizeUrl(urls.oauth2Public, urls.platform);
    const login = await jar.navigateToApp(url);
    expect(login.pathname).toBe('/account/login');
    const challenge = login.searchParams.get('login_challenge')!;
    const flow = await jar.fetch(
      `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`,
      { headers: { accept: 'application/json' } },
    );
    const submitted = await jar.fetch(`${urls.identityPublic}/self-service/login?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: {
        method: 'password',
        identifier: 'ada@acme.test',
        password: DEMO_PASSWORD,
        csrf_token: csrfOf(flow.body),
      },
    });
    expect(submitted.res.status, JSON.stringify(submitted.body)).toBe(422);
    return { redirect: submitted.body.redirect_browser_to as string, verifier };
  }

  async function exchange(code: string, verifier: string) {
    return fetch(`${cluster.urls.oauth2Public}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: `${cluster.urls.platform}/account/callback`,
        code_verifier: verifier,
        client_id: 'platform',
      }).toString(),
    });
  }

  it('the user finishes the sign-in after both processes are killed and restarted', async () => {
    const jar = new Jar(cluster.urls.platform);
    const { redirect, verifier } = await passwordAccepted(jar);

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
    const token = await exchange(code!, verifier);
    expect(token.status, await token.clone().text()).toBe(200);
    // The code is single use across the restart too.
    expect((await exchange(code!, verifier)).status).toBe(400);
  });

  it('nothing half-written remains: the verifier was spent once, and a new sign-in works', async () => {
    const jar = new Jar(cluster.urls.platform);
    const { redirect, verifier } = await passwordAccepted(jar);
    await killHard('oauth2');
    await cluster.restart('oauth2');
    const first = await jar.navigateToApp(redirect);
    expect(first.searchParams.get('code')).toMatch(/^ory_ac_/);
    expect((await exchange(first.searchParams.get('code')!, verifier)).status).toBe(200);
    // Following the same accepted login again gives no second code: its one-time verifier was
    // recorded as used, not lost with the process.
    const again = await jar.fetch(redirect);
    expect(again.res.status).toBe(400);
    expect(again.res.headers.get('location')).toBeNull();
  });
});
