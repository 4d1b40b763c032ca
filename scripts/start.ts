// `npm start`: the whole system in one process, with demo data, on the embedded database
// (or on a PostgreSQL server when DATABASE_URL is set).
import { createDb, type Database } from '@acme/db';
import { DEMO_PASSWORD, DEMO_SSO_USERS, DEMO_USERS } from '@acme/users';
import {
  DEMO_CONTOSO_PASSWORD,
  DEMO_CONTOSO_TENANT_ID,
  DEMO_FABRIKAM_PASSWORD,
  DEMO_FABRIKAM_TENANT_ID,
  DEMO_NORTHWIND_PASSWORD,
  ORG_IDP_DEMO_PASSWORD,
  ORG_IDP_DEMO_USERS,
} from '@acme/dev';
import { databaseFromEnv, threadPoolSized } from '@acme/service-kit/config';
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { PGLITE_DATA_DIR, prepareFirstBoot } from './prepare.ts';
import { loadStartConfig } from '@acme/dev/launchers/config';
import { LOOPBACK_TEST_LIMITS, startSystem, type SystemUrls } from './system.ts';

exitOnUnhandledErrors('system');
hardenPrototype('system'); // started with --disable-proto=delete; else removed now
// Memory back to the system once load has passed.
startIdleGc();
// `npm start` loads packages/service-kit/threadpool.mjs first, which sizes libuv's thread pool for
// password hashing plus other work; it cannot be done here (the pool already exists by now).
if (!threadPoolSized()) {
  console.warn(
    'UV_THREADPOOL_SIZE is not set: libuv runs 4 threads, which password hashing can fill. Use `npm start`.',
  );
}

const production = process.env.NODE_ENV === 'production';
const config = loadStartConfig();
if (production) {
  console.error(
    'npm start is the development system (stand-ins, demo data); run each service on its own in production.',
  );
  process.exit(1);
}

// The browser journeys (e2e/global-setup.ts) start the system this way too, with START_DATABASE,
// START_PORT_OFFSET, START_TEST_LIMITS and START_EXTRA_ENV (dev/src/launchers/config.ts).
// Started with an IPC channel, it sends `{ ready: urls }` to its parent once it is up.
const started = Date.now();
const { db, database } = await openDatabase(config.START_DATABASE === 'memory');
const system = await startSystem({
  db,
  logLevel: config.LOG_LEVEL,
  portOffset: config.START_PORT_OFFSET,
  ...(config.ADMIN_KEY ? { adminKey: config.ADMIN_KEY } : {}),
  extraEnv: {
    ...(config.START_TEST_LIMITS === '1' ? LOOPBACK_TEST_LIMITS : {}),
    ...config.START_EXTRA_ENV,
  },
});
const { urls } = system;
process.send?.({ ready: urls });

console.log(banner(urls, ((Date.now() - started) / 1000).toFixed(1), database));

// SIGTERM or Ctrl+C: every server stops accepting and finishes its requests in flight (up to 10 s),
// then the database closes and the process exits 0.
drainOnSignals('system', async () => {
  await system.close();
  await db.close();
});

/** The database: PGlite in memory, PostgreSQL at DATABASE_URL, or PGlite in its data directory. */
async function openDatabase(inMemory: boolean): Promise<{ db: Database; database: string }> {
  const { url, ...pool } = databaseFromEnv(process.env);
  const dataDir = PGLITE_DATA_DIR;
  // What `npm install` prepares (scripts/prepare.ts), when it has not: the app's build and the
  // database's initdb side by side, each in a child process, rather than one after the other.
  await prepareFirstBoot({ dataDir: inMemory || url ? undefined : dataDir });
  const db = await createDb(inMemory ? {} : { url, dataDir: url ? undefined : dataDir, ...pool });
  const database = inMemory ? 'PGlite in memory' : url ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${dataDir}`;
  return { db, database };
}

/** What `npm start` prints once the system is up: where everything is, and the demo accounts. */
function banner(urls: SystemUrls, seconds: string, database: string): string {
  return `
System ready in ${seconds} s, database: ${database}

  Platform app            ${urls.platform}/   (sign in here)
  MAGIC app               ${urls.magic}/
  admin, dashboard, local ${urls.apps.admin}/  ${urls.apps.dashboard}/  ${urls.apps.local}/
  AI, sandbox, UAT        ${urls.apps.ai}/  ${urls.apps['ai-sandbox']}/  ${urls.apps['ai-uat']}/
  Identity (Kratos API)   ${urls.identityPublic}   admin ${urls.identityAdmin}
  Authorization (Hydra)   ${urls.oauth2Public}   admin ${urls.oauth2Admin}
  User service            ${urls.usersPublic}   admin ${urls.usersAdmin}
  Agent service           ${urls.agent}   admin ${urls.agentAdmin}
  Mailbox                 ${urls.mail}/mail   (SMTP catcher on ${new URL(urls.smtp).host})
  Metrics and health      ${Object.entries(urls.management)
    .map(([part, u]) => `${part} ${u}`)
    .join('  ')}
                          (GET /metrics, /health/alive, /health/ready; no key)

Demo accounts (organisation Acme, domain acme.test), password ${DEMO_PASSWORD}:
${DEMO_USERS.map((u) => `  ${u.email}`).join('\n')}

Microsoft 365 (stand-ins): Entra ${urls.entra}   Graph ${urls.graph}
  Teams host page         ${urls.teamsHost}   (MAGIC inside Teams; ?user=<email>)
  Marketplace buyer page  ${urls.marketplace}/
  Contoso   contoso.test, subscribed, tenant ${DEMO_CONTOSO_TENANT_ID}
            megan@contoso.test / ${DEMO_CONTOSO_PASSWORD}  (user)
            diego@contoso.test / ${DEMO_CONTOSO_PASSWORD}  (in Entra only: unauthorised user)
  Fabrikam  fabrikam.test, not subscribed, tenant ${DEMO_FABRIKAM_TENANT_ID}
            alex@fabrikam.test / ${DEMO_FABRIKAM_PASSWORD}  (Owner: buys on the marketplace)
  Northwind lee@northwind.test / ${DEMO_NORTHWIND_PASSWORD}  (no admin consent)
  Unregistered-user requests: npm run admin -- requests:list

Single sign-on demo (organisation Globex, domain globex.test, products Platform and MAGIC): type the
address in the app, sign in at Globex's identity provider ${urls.orgIdp} with password ${ORG_IDP_DEMO_PASSWORD}:
${ORG_IDP_DEMO_USERS.map((u) => `  ${u.email}${DEMO_SSO_USERS.some((d) => d.email === u.email) ? '' : '   (no account yet: created at first sign-in)'}`).join('\n')}

Another company's app signing you in (consent screen, then the claims it got): ${urls.demoApp}/

Press Ctrl+C to stop.`;
}
