// The authorization server on its own process: `npm start -w @acme/oauth2`.
// Configuration from the environment (see config.ts: OAUTH2_PUBLIC_URL, OAUTH2_PUBLIC_PORT, USERS_ADMIN_URL…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in OAUTH2_DATA_DIR, else an in-memory PGlite.
import { enterProcess, logListening } from '@acme/service-kit/entry-point';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { settings } from './config.ts';
import { migrationSets, start } from './index.ts';

enterProcess('oauth2');

// `oauth2 migrate` and `oauth2 migrate status` run the migration step and exit here.
const db = await openServiceDatabase('oauth2', settings.dataDirVariable, migrationSets);
const service = await start({ db }).catch(refuseOnPendingMigrations('oauth2', 'OAUTH2_MIGRATE_AT_START'));
logListening('oauth2', service.urls);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('oauth2', async () => {
  await service.close();
  await db.close();
});
