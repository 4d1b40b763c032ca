// The user service on its own process: `npm start -w @acme/users`.
// Configuration from the environment (see config.ts: USERS_PUBLIC_PORT, IDENTITY_ADMIN_URL…).
// Database: DATABASE_URL (PostgreSQL), else PGlite in USERS_DATA_DIR, else an in-memory PGlite.
// Mail: an outbox worker sends queued mail to SMTP_URL (MAIL_WORKER=false: another process does).
import { startOutboxWorkerFromEnv } from '@acme/mail';
import { settingsFromFiles } from '@acme/service-kit/config';
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { openServiceDatabase, refuseOnPendingMigrations } from '@acme/service-kit/migrations';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { migrationSets, start } from './index.ts';

exitOnUnhandledErrors('users');
hardenPrototype('users'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

// `users migrate` and `users migrate status` run the migration step and exit here.
const db = await openServiceDatabase('users', 'USERS_DATA_DIR', migrationSets);
const service = await start({ db }).catch(refuseOnPendingMigrations('users', 'USERS_MIGRATE_AT_START'));
// SMTP_URL carries the relay's password: SMTP_URL_FILE reads it from a mounted file.
const mail = startOutboxWorkerFromEnv(db, settingsFromFiles(process.env, ['SMTP_URL']));
process.stderr.write(
  `${JSON.stringify({ level: 'info', name: 'users', msg: 'listening', urls: service.urls })}\n`,
);

// SIGTERM: stop accepting, let the requests in flight finish (up to 10 s), close the database, exit 0.
drainOnSignals('users', async () => {
  await service.close();
  await mail?.stop();
  await db.close();
});
