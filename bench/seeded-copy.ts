// A copy of the identity service, the authorization server and the user service, each its own
// process, seeded with the demo organisations, and a refresh token of its platform app: what the
// benches that load the three parts together start (tracing-cost.ts, tracing-share.ts, table-growth.ts).
import { freePortsApart } from '@acme/cluster/free-ports';
import { USUAL_PORTS, type Listener, type Ports } from '@acme/system-shape';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { createDatabase } from '@acme/db';
import { DEMO_PASSWORD, DEMO_USERS, seedDemo } from '@acme/users';
import { platformAuthorizeUrl } from '../services/users/test/auth-stack.ts';
import { Jar } from '../services/users/test/jar.ts';
import { LOOPBACK_TEST_LIMITS } from '../scripts/demo.ts';

/** The demo person every bench signs in as. */
export const EMAIL = DEMO_USERS[0].email;

/** The platform app's sign-in over HTTP (password, then the code exchange); answers the refresh token. */
export async function refreshTokenOf(urls: Record<Listener, string>): Promise<string> {
  const jar = new Jar(urls.platform);
  const { url, verifier } = platformAuthorizeUrl(urls.oauth2Public, urls.platform);
  const challenge = (await jar.navigateToApp(url)).searchParams.get('login_challenge') ?? '';
  const flow = await jar.fetch(
    `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`,
    { headers: { accept: 'application/json' } },
  );
  const nodes = (flow.body as { ui: { nodes: { attributes: { name?: string; value?: string } }[] } }).ui
    .nodes;
  const csrf = nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value ?? '';
  const submitted = await jar.fetch(`${urls.identityPublic}/self-service/login?flow=${flow.body.id}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    json: { method: 'password', identifier: EMAIL, password: DEMO_PASSWORD, csrf_token: csrf },
  });
  const callback = await jar.navigateToApp(submitted.body.redirect_browser_to as string);
  const token = await fetch(`${urls.oauth2Public}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: `${urls.platform}/account/callback`,
      code_verifier: verifier,
      client_id: 'platform',
    }),
  });
  const body = (await token.json()) as { refresh_token?: string };
  if (!body.refresh_token) throw new Error(`bench: no refresh token (${token.status})`);
  return body.refresh_token;
}

/**
 * The identity service, the authorization server and the user service, each its own process (the
 * compiled entry points) on a new database of the PostgreSQL server at `serverUrl`, seeded with the
 * demo organisations.
 */
export async function startSeededCluster(
  serverUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<{ cluster: RunningCluster; databaseUrl: string }> {
  const names = Object.keys(USUAL_PORTS) as Listener[];
  const free = await freePortsApart(names.length);
  const ports = Object.fromEntries(names.map((n, i) => [n, free[i]!])) as Ports;
  const databaseUrl = await createDatabase(serverUrl);
  const cluster = await startProcessCluster({
    databaseUrl,
    parts: ['identity', 'oauth2', 'users'],
    ports,
    runtime: 'compiled',
    logLevel: 'warn',
    extraEnv: {
      MAIL_WORKER: 'false',
      ...LOOPBACK_TEST_LIMITS,
      // Many logins of one account in flight: out of the lockout's way, as the IP limit is.
      IDENTITY_LOCKOUT_THRESHOLD: '1000000',
      ...extraEnv,
    },
  });
  await seedDemo(cluster.urls.usersAdmin);
  return { cluster, databaseUrl };
}
