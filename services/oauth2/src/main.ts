// The authorization server on its own process: `npm start -w @acme/oauth2`.
// Configuration from the environment (see config.ts: OAUTH2_PUBLIC_URL, OAUTH2_PUBLIC_PORT, USERS_ADMIN_URL…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in OAUTH2_DATA_DIR, else an in-memory PGlite.
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { DATA_DIR_VARIABLE } from './config.ts';
import { migrationSets, start } from './index.ts';

exitOnUnhandledErrors('oauth2');
hardenPrototype('oauth2'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

// `oauth2 migrate` and `oauth2 migrate status` run the migration step and exit here.
const db = await openServiceDatabase('oauth2', DATA_DIR_VARIABLE, migrationSets);
const service = await start({ db }).catch(refuseOnPendingMigrations('oauth2', 'OAUTH2_MIGRATE_AT_START'));
process.stderr.write(
  `${JSON.stringify({ level: 'info', name: 'oauth2', msg: 'listening', urls: service.urls })}\n`,
);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('oauth2', async () => {
  await service.close();
  await db.close();
});
