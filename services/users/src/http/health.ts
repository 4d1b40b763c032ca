import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { sql } from '@acme/db';
import { AppError } from './errors.ts';

/** `/health/alive` (the process answers) and `/health/ready` (the database answers), as Kratos has. */
export function registerHealthRoutes<T>(app: FastifyInstance, db: Kysely<T>): void {
  app.get('/health/alive', async () => ({ status: 'ok' }));
  app.get('/health/ready', async () => {
    try {
      await sql`select 1`.execute(db);
    } catch {
      throw new AppError('NOT_READY', 'The database is not reachable.');
    }
    return { status: 'ok' };
  });
}
