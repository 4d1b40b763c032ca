// The agent service on its own process: `npm start -w @acme/agent`.
// Configuration from the environment (see config.ts: AGENT_PUBLIC_PORT, AGENT_ADMIN_PORT, APP_ORIGINS…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in AGENT_DATA_DIR, else an in-memory PGlite.
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { DATA_DIR_VARIABLE } from './config.ts';
import { migrationSets, start } from './index.ts';

exitOnUnhandledErrors('agent');
hardenPrototype('agent'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

// `agent migrate` and `agent migrate status` run the migration step and exit here.
const db = await openServiceDatabase('agent', DATA_DIR_VARIABLE, migrationSets);
const service = await start({ db }).catch(refuseOnPendingMigrations('agent', 'AGENT_MIGRATE_AT_START'));
process.stderr.write(
  `${JSON.stringify({ level: 'info', name: 'agent', msg: 'listening', urls: service.urls })}\n`,
);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('agent', async () => {
  await service.close();
  await db.close();
});
