import type { Kysely } from 'kysely';
import type { IdentityDb } from './schema.ts';

/** The identity service's database handle (a connection or a transaction). */
export type Db = Kysely<IdentityDb>;

/** Whether `id` can be a uuid column value (anything else would make PostgreSQL fail the query). */
export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}
