import type { AddressInfo } from 'node:net';
import { prepareSchema, typed, type Database, type MigrationSet } from '@acme/db';
import { systemClock } from '@acme/db/clock';
import type { Clock } from '@acme/db/clock';
import { MAIL_NAMESPACE, migrations as mailMigrations, outboxBacklog, type Mailer } from '@acme/mail';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { registerOutboxMetrics } from '@acme/service-kit/metrics';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { startEventRetention } from './console/retention.ts';
import { startWebhookWorker } from './webhooks/worker.ts';
import { startSamlMetadataRefresh } from './sso/saml-provider.ts';
import { resealSsoSecrets } from './sso/reseal.ts';
import { createSecretBox } from '@acme/service-kit/secret-box';
import type { UsersDb } from './db-types.ts';
import { loadConfig } from './config.ts';
import { migrations } from './migrations.ts';

export { createApp } from './app.ts';
export { loadConfig } from './config.ts';
export type { Config } from './config.ts';
export { migrations } from './migrations.ts';
export {
  seedDemo,
  demoM365Organisations,
  DEMO_PASSWORD,
  DEMO_USERS,
  DEMO_ORGANISATION,
  DEMO_SSO_ORGANISATION,
  DEMO_SSO_PROVIDER,
  DEMO_SSO_USERS,
} from './seed.ts';
export type { DemoM365Tenants, SeedResult, SeedSsoOptions } from './seed.ts';
export { PERMISSIONS, ROLES, ROLE_PERMISSIONS } from './users/roles.ts';
export type { Permission, Role } from './users/roles.ts';

export const MIGRATION_NAMESPACE = 'users';

/** The migrations this service needs, in order: applied by `users migrate` or at start. */
export const migrationSets: MigrationSet[] = [
  { namespace: MIGRATION_NAMESPACE, migrations },
  // The outbox its invitations and notices are queued in.
  { namespace: MAIL_NAMESPACE, migrations: mailMigrations },
];

export interface StartOptions {
  db: Database;
  env?: Record<string, string | undefined>;
  clock?: Clock;
  logger?: Logger | false;
  /**
   * Where invitation mail goes (`@acme/mail`). Without one, mail is queued in the `mail_outbox`
   * table of `db` (migrated here) for whichever outbox worker runs on that database.
   */
  mailer?: Mailer;
  /** The outbox worker of this process, if it runs one: its failures are counted in this service's metrics. */
  mailWorker?: { readonly failures: number };
}

/**
 * Runs the user service: parses configuration, migrates, and listens with the public API
 * (`urls.public`, browser-facing, so `localhost`) and the admin API (`urls.admin`).
 */
export async function start(
  opts: StartOptions,
): Promise<{ urls: Record<string, string>; close(): Promise<void> }> {
  const config = loadConfig(opts.env);
  await prepareSchema(opts.db, migrationSets, config.migrateAtStart);
  const app = await createApp({
    config,
    db: opts.db,
    clock: opts.clock,
    logger: opts.logger,
    mailer: opts.mailer,
  });
  const sealed = await resealSsoSecrets(typed<UsersDb>(opts.db), createSecretBox(config.ssoSecretKeys));
  if (sealed.resealed > 0)
    app.admin.log.info(sealed, 'SSO client secrets sealed again under the first SSO_SECRET_KEY');
  if (sealed.unreadable > 0)
    app.admin.log.error(
      sealed,
      'SSO client secrets no configured SSO_SECRET_KEY opens: put the key that sealed them back in the list',
    );
  const retention = startEventRetention({
    db: typed<UsersDb>(opts.db),
    config,
    clock: opts.clock ?? systemClock,
    onError: (error) =>
      app.admin.log.error(
        { err: error },
        'retention (security events, feed, deliveries, spent records) failed',
      ),
  });
  const samlRefresh = startSamlMetadataRefresh(
    { db: typed<UsersDb>(opts.db), config, clock: opts.clock ?? systemClock },
    (error) => app.admin.log.error({ err: error }, 'saml metadata refresh failed'),
  );
  const webhooks = startWebhookWorker(app.context, (error) =>
    app.admin.log.warn({ err: error }, 'webhook round failed'),
  );
  const stopJobs = () => Promise.all([retention.stop(), samlRefresh.stop(), webhooks.stop()]);
  const listening: FastifyInstance[] = [];
  try {
    const publicPort = await listen(app.public, config.host, config.publicPort);
    listening.push(app.public);
    const adminPort = await listen(app.admin, config.admin.host, config.adminPort);
    listening.push(app.admin);
    const worker = opts.mailWorker;
    registerOutboxMetrics(app.metrics, {
      backlog: () => outboxBacklog(opts.db, opts.clock),
      ...(worker ? { failures: () => worker.failures } : {}),
    });
    const management = await startManagementServer({
      ...config.management,
      metrics: app.metrics,
      db: opts.db,
    });
    return {
      urls: {
        public: `http://localhost:${publicPort}`,
        admin: `http://localhost:${adminPort}`,
        management: management.url,
      },
      close: () =>
        closeWithManagement(management, async () => {
          await stopJobs();
          await Promise.all([app.public.close(), app.admin.close()]);
        }),
    };
  } catch (error) {
    await stopJobs();
    await Promise.all(listening.map((server) => server.close()));
    throw error;
  }
}

async function listen(server: FastifyInstance, host: string, port: number): Promise<number> {
  await server.listen({ host, port });
  return (server.server.address() as AddressInfo).port;
}
