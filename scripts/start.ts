// `npm start`: the whole system in one process, with demo data, on the embedded database
// (or on a PostgreSQL server when DATABASE_URL is set).
import { join } from 'node:path';
import { createDb } from '@acme/db';
import { ORG_IDP_DEMO_PASSWORD, ORG_IDP_DEMO_USERS } from '@acme/dev';
import { DEMO_PASSWORD, DEMO_SSO_USERS, DEMO_USERS } from '@acme/users';
import { startSystem } from './system.ts';

const production = process.env.NODE_ENV === 'production';
if (production) {
  console.error(
    'npm start is the development system (stand-ins, demo data); run each service on its own in production.',
  );
  process.exit(1);
}

const databaseUrl = process.env.DATABASE_URL;
const dataDir = join(import.meta.dirname, '..', '.data', 'pglite');
const started = Date.now();
const db = await createDb({ url: databaseUrl, dataDir: databaseUrl ? undefined : dataDir });
const system = await startSystem({ db, logLevel: process.env.LOG_LEVEL ?? 'warn' });
const { urls } = system;

console.log(`
System ready in ${((Date.now() - started) / 1000).toFixed(1)} s, database: ${databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${dataDir}`}

  Platform app            ${urls.platform}/   (sign in here)
  MAGIC app               ${urls.magic}/
  Identity (Kratos API)   ${urls.identityPublic}   admin ${urls.identityAdmin}
  Authorization (Hydra)   ${urls.oauth2Public}   admin ${urls.oauth2Admin}
  User service            ${urls.usersPublic}   admin ${urls.usersAdmin}
  Agent service           ${urls.agent}
  Mailbox                 ${urls.mail}/mail   (SMTP catcher on localhost:2525)

Demo accounts (organisation Acme, domain acme.test), password ${DEMO_PASSWORD}:
${DEMO_USERS.map((u) => `  ${u.email}`).join('\n')}

Single sign-on demo (organisation Globex, domain globex.test, products Platform and MAGIC): type the
address in the app, sign in at Globex's identity provider ${urls.orgIdp} with password ${ORG_IDP_DEMO_PASSWORD}:
${ORG_IDP_DEMO_USERS.map((u) => `  ${u.email}${DEMO_SSO_USERS.some((d) => d.email === u.email) ? '' : '   (no account yet: created at first sign-in)'}`).join('\n')}

Press Ctrl+C to stop.`);

const stop = async () => {
  await system.close();
  await db.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
