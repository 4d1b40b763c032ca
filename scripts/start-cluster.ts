// `npm run start:cluster`: the system as it runs when scaled out (scripts/cluster-system.ts). A
// throwaway PostgreSQL cluster, two processes of every service (identity, authorization server,
// user service, agent service, account app server), each on its own ports, and in front of every
// listener nginx, which sends requests to the two in turn, on the ports `npm start` uses: the apps
// work unchanged. The stand-ins (mailbox, GitHub, Microsoft, Globex's IdP) run once: their state is
// in memory.
import { DEMO_PASSWORD, DEMO_USERS } from '@acme/users';
import { MANAGEMENT_LISTENER, type Part } from '@acme/system-shape';
import { startScaledSystem } from './cluster-system.ts';
import { loadClusterConfig } from '@acme/dev/launchers/config';

if (process.env.NODE_ENV === 'production') {
  console.error('start:cluster is a development tool (throwaway database, stand-ins, demo data).');
  process.exit(1);
}

const started = Date.now();
const config = loadClusterConfig();
const adminKey = config.ADMIN_KEY;
console.log('Building the account app and starting PostgreSQL…');
// CLUSTER_PORT_OFFSET moves every port (to run it beside `npm start`); the browser-facing URLs
// every part is given move with them.
const system = await startScaledSystem({
  portOffset: config.CLUSTER_PORT_OFFSET,
  instances: 2,
  logLevel: config.LOG_LEVEL,
  inheritOutput: true,
  ...(adminKey ? { adminKey } : {}),
});
const urls = system.listeners;
let stopping = false;

const instances = system.cluster.processes.map((p) => `${p.name} (pid ${p.child.pid})`).join(', ');
// Every instance's own management listener (GET /metrics, /health/alive, /health/ready; no key).
const management = system.cluster.processes
  .flatMap((p) => {
    // Process names are the part's, with `-<n>` when it runs several.
    const listener = MANAGEMENT_LISTENER[p.name.replace(/-\d+$/, '') as Part];
    const port = listener && system.cluster.instancePorts.get(p.name)?.[listener];
    return port ? [`${p.name} http://localhost:${port}`] : [];
  })
  .join('\n    ');
console.log(`
Cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s, PostgreSQL ${system.databaseUrl}

  Processes: ${instances}
  Every service listener below is nginx (config: ${system.cluster.nginx?.prefix}/nginx.conf),
  alternating between the two instances
  (response header X-Upstream-Instance names the one that answered).

  Platform app            ${urls.platform}/   (sign in here)
  MAGIC app               ${urls.magic}/
  Teams host page         ${system.urls.teamsHost}   (MAGIC inside Teams; ?user=<email>)
  Identity (Kratos API)   ${urls.identityPublic}   admin ${urls.identityAdmin}
  Authorization (Hydra)   ${urls.oauth2Public}   admin ${urls.oauth2Admin}
  User service            ${urls.usersPublic}   admin ${urls.usersAdmin}
  Agent service           ${urls.agent}   admin ${urls.agentAdmin}
  Mailbox                 ${urls.standIns}/mail

  Metrics and health of each instance (GET /metrics, /health/alive, /health/ready; no key):
    ${management}

${
  adminKey
    ? '  Every admin API requires the bearer key ADMIN_KEY.\n'
    : `  Every admin API requires a bearer key, made for this run (throwaway, like the database); for npm run admin:
    export USERS_ADMIN_KEY=${system.adminKey} IDENTITY_ADMIN_KEY=${system.adminKey} \\
      OAUTH2_ADMIN_KEY=${system.adminKey} AGENT_ADMIN_KEY=${system.adminKey}
`
}
Demo accounts, password ${DEMO_PASSWORD}: ${DEMO_USERS.map((u) => u.email).join(', ')}

Press Ctrl+C to stop (the database is removed).`);

const stop = () => {
  if (stopping) return;
  stopping = true;
  system
    .close()
    .catch(() => undefined)
    .finally(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
