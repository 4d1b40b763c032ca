import { sql, type Expression, type QueryExecutorProvider, type SqlBool } from 'kysely';
import { deleteInBatches } from './batched-delete.ts';

// The security event logs of the identity service (`identity_security_events`) and the user service
// (`security_events`) are read and trimmed the same way: newest first by (occurred_at, id), paged by
// keyset, and deleted past their retention in short batches. One implementation for both.

/** A position in the newest-first order: the last event of the previous page. */
export interface EventLogPosition {
  occurredAt: Date;
  id: string;
}

/**
 * Keyset paging in newest-first (occurred_at, id) order: the rows strictly after `before`, i.e.
 * older, or as old with a smaller id. Use with `.orderBy('occurred_at', 'desc').orderBy('id', 'desc')`.
 */
export function olderThan(before: EventLogPosition): Expression<SqlBool> {
  return sql<SqlBool>`(occurred_at < ${before.occurredAt} or (occurred_at = ${before.occurredAt} and id < ${before.id}))`;
}

/**
 * Retention: deletes the rows of `table` whose `occurred_at` is before `cutoff`, `batchSize` rows
 * per statement, each its own short statement, so a writer never waits behind one long delete.
 * Returns how many went.
 */
export async function deleteOlderInBatches(
  db: QueryExecutorProvider,
  table: string,
  cutoff: Date,
  batchSize: number,
): Promise<number> {
  return deleteInBatches(db, { table, where: sql`occurred_at < ${cutoff}`, batchSize });
}
