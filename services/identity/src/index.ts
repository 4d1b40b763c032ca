import type { pino } from 'pino';
import { lowerThreadPoolPriority } from '@acme/service-kit/thread-priority';
import { createServiceLogger } from '@acme/service-kit/logging';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { registerOutboxMetrics } from '@acme/service-kit/metrics';
import { prepareSchema, type Database, type MigrationSet } from '@acme/db';
import { systemClock, type Clock } from '@acme/db/clock';
import { cleanupExpired } from './db/cleanup.ts';
import { deleteExpiredSecurityEvents } from './db/security-events.ts';
import { createMailer, MAIL_NAMESPACE, migrations as mailMigrations, outboxBacklog } from '@acme/mail';
import { createApp, type Mailer } from './app.ts';
import { loadConfig } from './config.ts';
import { migrations } from './migrations.ts';

export { createApp, type Mailer } from './app.ts';
export { loadConfig, type Config } from './config.ts';
export { migrations } from './migrations.ts';
export { ensurePasswordIdentity, type SeedIdentity } from './seed.ts';

export const MIGRATION_NAMESPACE = 'identity';

/** The migrations this service needs, in order: applied by `identity migrate` or at start. */
export const migrationSets: MigrationSet[] = [
  { namespace: MIGRATION_NAMESPACE, migrations },
  // The outbox its recovery and verification codes are queued in.
  { namespace: MAIL_NAMESPACE, migrations: mailMigrations },
];

/** Pino redaction for anything that may carry a secret. */
export const redactPaths = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-session-token"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'token',
  '*.token',
];

export async function start(opts: {
  db: Database;
  env?: Record<string, string | undefined>;
  clock?: Clock;
  logger?: pino.Logger | false;
  mailer?: Mailer;
  /** The outbox worker of this process, if it runs one: its failures are counted in this service's metrics. */
  mailWorker?: { readonly failures: number };
}): Promise<{ urls: Record<string, string>; close(): Promise<void> }> {
  const config = loadConfig(opts.env);
  // Hashing yields to request handling (packages/service-kit/src/thread-priority.ts says why).
  await lowerThreadPoolPriority(config.hashPool.nice);
  await prepareSchema(opts.db, migrationSets, config.migrateAtStart);
  const logger =
    opts.logger === undefined
      ? createServiceLogger('identity', config.logLevel, { redact: redactPaths })
      : opts.logger;
  // Without an injected mailer, messages go to the shared outbox table (@acme/mail); its worker sends them.
  let mailer = opts.mailer;
  if (!mailer) {
    mailer = createMailer({ db: opts.db, ...(opts.clock ? { clock: opts.clock } : {}) });
  }
  const app = await createApp({
    config,
    db: opts.db,
    ...(opts.clock ? { clock: opts.clock } : {}),
    mailer,
    logger,
  });
  await app.public.listen({ host: config.publicHost, port: config.publicPort });
  await app.admin.listen({ host: config.admin.host, port: config.adminPort });
  const worker = opts.mailWorker;
  registerOutboxMetrics(app.ctx.metrics.service, {
    backlog: () => outboxBacklog(opts.db, opts.clock),
    ...(worker ? { failures: () => worker.failures } : {}),
  });
  const management = await startManagementServer({
    ...config.management,
    metrics: app.ctx.metrics.service,
    db: opts.db,
  });
  const clock = opts.clock ?? systemClock;
  const { retentionDays, cleanupBatch } = config.securityEvents;
  const sweep = () =>
    cleanupExpired(app.ctx.db, clock.now(), config.retention)
      .then(() => deleteExpiredSecurityEvents(app.ctx.db, clock.now(), retentionDays, cleanupBatch))
      .catch((err: unknown) => {
        if (logger) logger.warn({ err }, 'cleanup of expired identity records failed');
      });
  const timer = setInterval(sweep, 10 * 60_000);
  timer.unref();
  return {
    urls: { public: config.publicUrl, admin: config.adminUrl, management: management.url },
    async close() {
      clearInterval(timer);
      await closeWithManagement(management, () => app.close());
    },
  };
}
