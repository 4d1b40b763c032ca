// `npm run start:cluster`: the system as it runs when scaled out. A throwaway PostgreSQL cluster,
// two processes of every service (identity, authorization server, user service, agent service,
// account app server), each on its own ports, and in front of every listener a proxy that sends
// requests to the two in turn, on the ports `npm start` uses: the apps work unchanged.
// The stand-ins (mailbox, GitHub, Microsoft, Globex's IdP) run once: their state is in memory.
import { randomBytes } from 'node:crypto';
import { startProcessCluster, USUAL_PORTS, type Ports } from '@acme/cluster/system';
import { DEMO_CONTOSO_TENANT_ID, DEMO_FABRIKAM_TENANT_ID } from '@acme/dev';
import { DEMO_PASSWORD, DEMO_USERS, seedDemo } from '@acme/users';
import { startCluster as startPostgres } from '../packages/test-kit/src/postgres-cluster.ts';
import { buildApp } from '../apps/account/server/serve.ts';

if (process.env.NODE_ENV === 'production') {
  console.error('start:cluster is a development tool (throwaway database, stand-ins, demo data).');
  process.exit(1);
}

// CLUSTER_PORT_OFFSET moves every port (to run it beside `npm start`); the browser-facing URLs
// every part is given move with them.
const offset = Number(process.env.CLUSTER_PORT_OFFSET ?? 0);
const ports = Object.fromEntries(
  Object.entries(USUAL_PORTS).map(([name, port]) => [name, port + offset]),
) as Ports;
const started = Date.now();
const adminKey = process.env.ADMIN_KEY || undefined;
const orgIdpClientSecret = randomBytes(24).toString('base64url');
console.log('Building the account app and starting PostgreSQL…');
const distDir = await buildApp();
const postgres = await startPostgres();
let stopping = false;

try {
  const cluster = await startProcessCluster({
    databaseUrl: postgres.url,
    parts: ['standIns', 'identity', 'oauth2', 'users', 'agent', 'account'],
    instances: 2,
    ports,
    accountDistDir: distDir,
    orgIdpClientSecret,
    logLevel: process.env.LOG_LEVEL ?? 'warn',
    inheritOutput: true,
    ...(adminKey ? { adminKey } : {}),
  });
  const { urls } = cluster;
  // Once, through the user service's proxy: the demo accounts, Microsoft 365 tenants and Globex's SSO.
  await seedDemo(urls.usersAdmin, adminKey, {
    m365: { contosoTenantId: DEMO_CONTOSO_TENANT_ID, fabrikamTenantId: DEMO_FABRIKAM_TENANT_ID },
    sso: {
      issuer: urls.orgIdp,
      clientId: 'acme-platform',
      clientSecret: orgIdpClientSecret,
    },
  });

  const instances = cluster.processes.map((p) => `${p.name} (pid ${p.child.pid})`).join(', ');
  console.log(`
Cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s, PostgreSQL ${postgres.url}

  Processes: ${instances}
  Every service listener below is a proxy that alternates between the two instances
  (response header X-Upstream-Instance names the one that answered).

  Platform app            ${urls.platform}/   (sign in here)
  MAGIC app               ${urls.magic}/
  Identity (Kratos API)   ${urls.identityPublic}   admin ${urls.identityAdmin}
  Authorization (Hydra)   ${urls.oauth2Public}   admin ${urls.oauth2Admin}
  User service            ${urls.usersPublic}   admin ${urls.usersAdmin}
  Agent service           ${urls.agent}   admin ${urls.agentAdmin}
  Mailbox                 ${urls.standIns}/mail

Demo accounts, password ${DEMO_PASSWORD}: ${DEMO_USERS.map((u) => u.email).join(', ')}

Press Ctrl+C to stop (the database is removed).`);

  const stop = () => {
    if (stopping) return;
    stopping = true;
    cluster
      .close()
      .catch(() => undefined)
      .finally(() => {
        postgres.stop();
        process.exit(0);
      });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  postgres.stop();
  throw error;
}
