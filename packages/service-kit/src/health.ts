import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { sql } from '@acme/db';
import { z } from 'zod';
import { openApi } from './openapi.ts';

const healthSchema = z.object({ status: z.literal('ok') });

/**
 * `/health/alive` (the process answers) and `/health/ready` (the database answers), as Kratos has.
 * `notReady` builds the service's own error for an unreachable database.
 */
export function registerHealthRoutes<T>(app: FastifyInstance, db: Kysely<T>, notReady: () => Error): void {
  app.get(
    '/health/alive',
    openApi({ summary: 'The process answers.', responses: { 200: healthSchema } }),
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/health/ready',
    openApi({ summary: 'The database answers.', responses: { 200: healthSchema } }),
    async () => {
      try {
        await sql`select 1`.execute(db);
      } catch {
        throw notReady();
      }
      return { status: 'ok' };
    },
  );
}
