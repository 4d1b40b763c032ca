// The identity service on its own process: `npm start -w @acme/identity`.
// Database: DATABASE_URL (PostgreSQL), else PGlite in IDENTITY_DATA_DIR, else an in-memory PGlite.
// Mail: an outbox worker sends queued mail to SMTP_URL (MAIL_WORKER=false: another process does).
// Start it with the thread-pool preload first (the workspace's `start` script does): see
// packages/service-kit/threadpool.mjs for why the pool size must be set before anything else runs.
import { startOutboxWorkerFromEnv, type OutboxWorker } from '@acme/mail';
import { threadPoolSized } from '@acme/service-kit/config';
import { enterProcess } from '@acme/service-kit/entry-point';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { settings } from './config.ts';
import { migrationSets, start } from './index.ts';

enterProcess('identity');
if (!threadPoolSized()) {
  process.stderr.write(
    `${JSON.stringify({ level: 'warn', name: 'identity', msg: 'UV_THREADPOOL_SIZE is not set: libuv runs 4 threads, which password hashing can fill; start with --import packages/service-kit/threadpool.mjs' })}\n`,
  );
}

// `identity migrate` and `identity migrate status` run the migration step and exit here.
const db = await openServiceDatabase('identity', settings.dataDirVariable, migrationSets);
// The worker starts once the schema is ready (start migrates); its failures are in this service's metrics.
const outbox: { worker?: OutboxWorker | undefined } = {};
const mailWorker = {
  get failures() {
    return outbox.worker?.failures ?? 0;
  },
};
const service = await start({ db, mailWorker }).catch(
  refuseOnPendingMigrations('identity', 'IDENTITY_MIGRATE_AT_START'),
);
// Recovery and verification codes are queued in the database; this process delivers them too.
const mail = startOutboxWorkerFromEnv(db);
outbox.worker = mail;

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('identity', async () => {
  await service.close();
  await mail?.stop();
  await db.close();
});
