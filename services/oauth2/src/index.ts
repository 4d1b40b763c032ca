import { shedFastifyRequests, shedNodeRequests, startOverloadGuard } from '@acme/service-kit/overload';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { prepareSchema, type Database, type MigrationSet } from '@acme/db';
import type { Clock } from '@acme/db/clock';
import { systemClock } from '@acme/db/clock';
import type pino from 'pino';
import { deleteExpired, deleteIdleGrants } from './adapter/postgres-adapter.ts';
import { createApp } from './app.ts';
import { handleWithRequestId } from '@acme/service-kit/request-id';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { loadConfig } from './config.ts';
import { migrations } from './migrations.ts';

export { createApp } from './app.ts';
export { loadConfig } from './config.ts';
export { migrations } from './migrations.ts';

export const MIGRATION_NAMESPACE = 'oauth2';

/** The migrations this service needs, in order: applied by `oauth2 migrate` or at start. */
export const migrationSets: MigrationSet[] = [{ namespace: MIGRATION_NAMESPACE, migrations }];

const CLEANUP_INTERVAL_MS = 15 * 60 * 1000;

/** Starts the authorization server: public (issuer) on 127.0.0.1, admin on its configured interface. */
export async function start(opts: {
  db: Database;
  env?: Record<string, string | undefined>;
  clock?: Clock;
  logger?: pino.Logger | false;
}): Promise<{ urls: Record<string, string>; close(): Promise<void> }> {
  const config = loadConfig(opts.env);
  const clock = opts.clock ?? systemClock;
  await prepareSchema(opts.db, migrationSets, config.migrateAtStart);
  const cleanup = async () => {
    await deleteExpired(opts.db, clock);
    await deleteIdleGrants(opts.db, clock, {
      idleHours: config.idleGrantRetentionHours,
      refreshGraceSeconds: config.refreshGraceSeconds,
    });
  };
  await cleanup();
  const app = await createApp({ config, db: opts.db, clock, logger: opts.logger });
  const { admin } = app;
  // Past capacity, new requests get a quick 503 with Retry-After; /health/* is always answered.
  const overload = startOverloadGuard(config.overload);
  const shedBody = () => ({
    error: 'temporarily_unavailable',
    error_description: 'The server is busy right now; retry after the time in Retry-After.',
  });
  shedFastifyRequests(admin, overload, shedBody);

  const publicServer: Server = createServer(
    handleWithRequestId(shedNodeRequests(app.handler, overload, shedBody)),
  );
  publicServer.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    publicServer.once('error', reject);
    publicServer.listen(config.publicPort, config.publicHost, () => resolve());
  });
  await admin.listen({ port: config.adminPort, host: config.admin.host });
  const management = await startManagementServer({ ...config.management, metrics: app.metrics, db: opts.db });

  const publicPort = (publicServer.address() as AddressInfo).port;
  const adminPort = (admin.server.address() as AddressInfo).port;
  const cleanupTimer = setInterval(() => {
    cleanup().catch((error: unknown) => app.runtime.logger.error({ err: error }, 'oauth2 cleanup failed'));
  }, CLEANUP_INTERVAL_MS);
  cleanupTimer.unref();
  // Another instance (or the CLI through it) may rotate the signing keys: pick them up. A scheduled
  // rotation (OAUTH2_KEY_ROTATE_EVERY) is asked for here too, by every instance (one rotates).
  const keyWatch = setInterval(() => {
    app
      .maintainKeys()
      .catch((error: unknown) => app.runtime.logger.error({ err: error }, 'signing key upkeep failed'));
  }, config.keyReloadSeconds * 1000);
  keyWatch.unref();

  return {
    urls: {
      public: config.publicPort === 0 ? `http://localhost:${publicPort}` : config.issuer,
      admin: `http://localhost:${adminPort}`,
      management: management.url,
    },
    close: () => closeWithManagement(management, close),
  };

  async function close() {
    clearInterval(cleanupTimer);
    clearInterval(keyWatch);
    overload.stop();
    // Stop accepting, close idle keep-alive connections, let requests in flight finish; a
    // connection whose response is done is then closed at once instead of kept alive.
    publicServer.keepAliveTimeout = 1;
    const publicClosed = new Promise<void>((resolve) => publicServer.close(() => resolve()));
    publicServer.closeIdleConnections();
    await Promise.all([admin.close(), publicClosed]);
  }
}
