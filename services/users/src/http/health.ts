import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { registerHealthRoutes as registerSharedHealthRoutes } from '@acme/service-kit/health';
import { AppError } from './errors.ts';

/** `/health/alive` and `/health/ready` (503 `NOT_READY` when the database does not answer). */
export function registerHealthRoutes<T>(app: FastifyInstance, db: Kysely<T>): void {
  registerSharedHealthRoutes(app, db, () => new AppError('NOT_READY', 'The database is not reachable.'));
}
