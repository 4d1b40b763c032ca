import { createTestDb, migrate, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { fastifyRoutes, sendPrototypeAttacks } from '@acme/test-kit/prototype-attacks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { MIGRATION_NAMESPACE } from '../src/index.ts';
import { migrations } from '../src/migrations.ts';

/**
 * Request fuzzing of the agent service: prototype keys, nested, dotted and in paths, to every route
 * of both route tables.
 */
describe('prototype keys to every route of the agent service', () => {
  let db: Database;
  let app: Awaited<ReturnType<typeof createApp>>;
  let publicUrl = '';
  let adminUrl = '';

  beforeAll(async () => {
    db = await createTestDb();
    await migrate(db, MIGRATION_NAMESPACE, migrations);
    const config = loadConfig({
      AGENT_PUBLIC_PORT: '0',
      AGENT_ADMIN_PORT: '0',
      AGENT_MANAGEMENT_PORT: '0',
      AGENT_RATE_LIMIT: '100000',
    });
    app = await createApp({
      config,
      db,
      clock: new FakeClock(new Date('2026-03-01T09:00:00.000Z')),
      logger: false,
    });
    publicUrl = await app.public.listen({ host: '127.0.0.1', port: 0 });
    adminUrl = await app.admin.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all([app?.public.close(), app?.admin.close()]);
    await db?.close();
  });

  it('no request reaches Object.prototype, each key gets a 4xx {errorCode, message}, and the service still works', async () => {
    const routes = [
      ...fastifyRoutes(app.public).map((route) => ({ base: publicUrl, route })),
      ...fastifyRoutes(app.admin).map((route) => ({ base: adminUrl, route })),
    ];
    // The route tables themselves: a new route is covered without this test naming it.
    expect(routes.map(({ route }) => `${route.method} ${route.url}`)).toEqual(
      expect.arrayContaining(['POST /misc/unregistered-user', 'GET /admin/unregistered-user-requests']),
    );
    const answers = [];
    for (const { base, route } of routes) answers.push(...(await sendPrototypeAttacks(base, [route])));
    const shaped = (body: unknown) =>
      typeof body === 'object' &&
      body !== null &&
      typeof (body as { errorCode?: unknown }).errorCode === 'string' &&
      typeof (body as { message?: unknown }).message === 'string';
    const wrong = answers.filter(
      (a) => a.prototype.length > 0 || a.status >= 500 || (a.namesKey && (a.status < 400 || !shaped(a.body))),
    );
    expect(
      wrong.map(
        (a) =>
          `${a.route.method} ${a.route.url} ${a.request}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)} ${a.prototype.join(', ')}`,
      ),
    ).toEqual([]);

    // Afterwards the admin list still answers.
    const list = await fetch(`${adminUrl}/admin/unregistered-user-requests`);
    expect(list.status).toBe(200);
  }, 60_000);
});
