// The agent service on its own process: `npm start -w @acme/agent`.
// Configuration from the environment (see config.ts: AGENT_PORT, AGENT_ADMIN_PORT, APP_ORIGINS…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in AGENT_DATA_DIR, else an in-memory PGlite.
import { createDb } from '@acme/db';
import { databaseFromEnv } from '@acme/service-kit/config';
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { start } from './index.ts';

exitOnUnhandledErrors('agent');
hardenPrototype('agent'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

const { url, ...pool } = databaseFromEnv(process.env);
const dataDir = url ? undefined : process.env.AGENT_DATA_DIR || undefined;
const db = await createDb({ url, dataDir, ...pool });
const service = await start({ db });
process.stderr.write(
  `${JSON.stringify({ level: 'info', name: 'agent', msg: 'listening', urls: service.urls })}\n`,
);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('agent', async () => {
  await service.close();
  await db.close();
});
