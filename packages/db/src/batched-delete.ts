import { sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';

/**
 * Deletes the rows of `table` matching `where`, at most `batchSize` per statement, each statement
 * its own short transaction: a cleanup of a large backlog never holds locks (or a long snapshot)
 * that whoami, sign-in or a token request would wait behind. Each batch finds its rows through the
 * condition's index (the batch size is a literal, so the planner knows a batch is small) and
 * deletes them by their physical address (a TID scan), so no plan ever reads the whole table. A
 * row changed meanwhile is left for the next run. Safe to run from several instances at once.
 * `orderBy` (an index's order) makes the planner walk that index even when most of the table
 * matches. Returns how many went.
 */
export async function deleteInBatches(
  db: QueryExecutorProvider,
  options: { table: string; where: RawBuilder<unknown>; batchSize: number; orderBy?: RawBuilder<unknown> },
): Promise<number> {
  const table = sql.table(options.table);
  const order = options.orderBy ? sql`order by ${options.orderBy}` : sql``;
  let total = 0;
  for (;;) {
    const result = await sql`
      delete from ${table}
      where ctid = any(array(select ctid from ${table} where ${options.where} ${order} limit ${sql.lit(options.batchSize)}))`.execute(
      db,
    );
    const deleted = Number(result.numAffectedRows ?? 0);
    total += deleted;
    if (deleted < options.batchSize) return total;
  }
}
