// The user service on its own process: `npm start -w @acme/users`.
// Configuration from the environment (see config.ts: USERS_PUBLIC_PORT, IDENTITY_ADMIN_URL…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in USERS_DATA_DIR, else an in-memory PGlite.
// Mail: an outbox worker sends queued mail to SMTP_URL (MAIL_WORKER=false: another process does).
import { startOutboxWorkerFromEnv, type OutboxWorker } from '@acme/mail';
import { enterProcess, logListening } from '@acme/service-kit/entry-point';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { settings } from './config.ts';
import { migrationSets, start } from './index.ts';

enterProcess('users');

// `users migrate` and `users migrate status` run the migration step and exit here.
const db = await openServiceDatabase('users', settings.dataDirVariable, migrationSets);
// The worker starts once the schema is ready (start migrates); its failures are in this service's metrics.
const outbox: { worker?: OutboxWorker | undefined } = {};
const mailWorker = {
  get failures() {
    return outbox.worker?.failures ?? 0;
  },
};
const service = await start({ db, mailWorker }).catch(
  refuseOnPendingMigrations('users', 'USERS_MIGRATE_AT_START'),
);
const mail = startOutboxWorkerFromEnv(db);
outbox.worker = mail;
logListening('users', service.urls);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('users', async () => {
  await service.close();
  await mail?.stop();
  await db.close();
});
