import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { sql } from '@acme/db';

/**
 * `/health/alive` (the process answers) and `/health/ready` (the database answers), as Kratos has.
 * `notReady` builds the service's own error for an unreachable database.
 */
export function registerHealthRoutes<T>(app: FastifyInstance, db: Kysely<T>, notReady: () => Error): void {
  app.get('/health/alive', async () => ({ status: 'ok' }));
  app.get('/health/ready', async () => {
    try {
      await sql`select 1`.execute(db);
    } catch {
      throw notReady();
    }
    return { status: 'ok' };
  });
}
