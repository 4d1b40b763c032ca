import type { AddressInfo } from 'node:net';
import { prepareSchema, type Database, type MigrationSet } from '@acme/db';
import type { Clock } from '@acme/db/clock';
import type { Logger } from 'pino';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { migrations } from './migrations.ts';

export { createApp, loadConfig, migrations };
export type { Config } from './config.ts';

export const MIGRATION_NAMESPACE = 'agent';

/** The migrations this service needs, in order: applied by `agent migrate` or at start. */
export const migrationSets: MigrationSet[] = [{ namespace: MIGRATION_NAMESPACE, migrations }];

/** Runs the agent service: parses configuration, migrates and listens (`urls.public`). */
export async function start(opts: {
  db: Database;
  env?: Record<string, string | undefined>;
  clock?: Clock;
  logger?: Logger | false;
}): Promise<{ urls: Record<string, string>; close(): Promise<void> }> {
  const config = loadConfig(opts.env);
  await prepareSchema(opts.db, migrationSets, config.migrateAtStart);
  const app = await createApp({ config, db: opts.db, clock: opts.clock, logger: opts.logger });
  await app.public.listen({ host: config.host, port: config.port });
  let management;
  try {
    await app.admin.listen({ host: config.admin.host, port: config.adminPort });
    management = await startManagementServer({ ...config.management, metrics: app.metrics, db: opts.db });
  } catch (error) {
    await Promise.all([app.public.close(), app.admin.close()]);
    throw error;
  }
  const port = (app.public.server.address() as AddressInfo).port;
  const adminPort = (app.admin.server.address() as AddressInfo).port;
  return {
    urls: {
      public: `http://localhost:${port}`,
      admin: `http://localhost:${adminPort}`,
      management: management.url,
    },
    close: () =>
      closeWithManagement(management, async () => {
        await Promise.all([app.public.close(), app.admin.close()]);
      }),
  };
}
