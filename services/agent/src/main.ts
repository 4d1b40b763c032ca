// The agent service on its own process: `npm start -w @acme/agent`.
// Configuration from the environment (see config.ts: AGENT_PUBLIC_PORT, AGENT_ADMIN_PORT, APP_ORIGINS…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in AGENT_DATA_DIR, else an in-memory PGlite.
import { enterProcess, logListening } from '@acme/service-kit/entry-point';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { settings } from './config.ts';
import { migrationSets, start } from './index.ts';

enterProcess('agent');

// `agent migrate` and `agent migrate status` run the migration step and exit here.
const db = await openServiceDatabase('agent', settings.dataDirVariable, migrationSets);
const service = await start({ db }).catch(refuseOnPendingMigrations('agent', 'AGENT_MIGRATE_AT_START'));
logListening('agent', service.urls);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('agent', async () => {
  await service.close();
  await db.close();
});
