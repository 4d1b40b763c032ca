// The identity service on its own process: `npm start -w @acme/identity`.
// Database: DATABASE_URL (PostgreSQL), else PGlite in IDENTITY_DATA_DIR, else an in-memory PGlite.
// Mail: an outbox worker sends queued mail to SMTP_URL (MAIL_WORKER=false: another process does).
// Start it with the thread-pool preload first (the workspace's `start` script does): see
// packages/service-kit/threadpool.mjs for why the pool size must be set before anything else runs.
import { startOutboxWorkerFromEnv } from '@acme/mail';
import { settingsFromFiles } from '@acme/service-kit/config';
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { migrationSets, start } from './index.ts';

exitOnUnhandledErrors('identity');
hardenPrototype('identity'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed
if (!process.env.UV_THREADPOOL_SIZE) {
  process.stderr.write(
    `${JSON.stringify({ level: 'warn', name: 'identity', msg: 'UV_THREADPOOL_SIZE is not set: libuv runs 4 threads, which password hashing can fill; start with --import packages/service-kit/threadpool.mjs' })}\n`,
  );
}

// `identity migrate` and `identity migrate status` run the migration step and exit here.
const db = await openServiceDatabase('identity', 'IDENTITY_DATA_DIR', migrationSets);
const service = await start({ db }).catch(refuseOnPendingMigrations('identity', 'IDENTITY_MIGRATE_AT_START'));
// Recovery and verification codes are queued in the database; this process delivers them too.
// SMTP_URL carries the relay's password: SMTP_URL_FILE reads it from a mounted file.
const mail = startOutboxWorkerFromEnv(db, settingsFromFiles(process.env, ['SMTP_URL']));

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('identity', async () => {
  await service.close();
  await mail?.stop();
  await db.close();
});
