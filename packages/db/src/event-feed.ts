import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';

// A feed of events that readers follow by cursor (the identity service's security events, the user
// service's organisation events): each row gets its place in the feed, `feed_seq`, only after it has
// committed. Writers insert with `feed_seq` null and take no shared lock; `publishFeed` numbers the
// committed, unnumbered rows in one short transaction that holds the feed's counter row, so numbering
// runs one at a time and each run's numbers are above every number before it. A reader therefore only
// ever sees a gap-free prefix of the feed: a cursor on the insert time or on a serial column would
// skip a row that was written early and committed late (its number or time is below a cursor a
// reader already passed); a number given after commit cannot be.
//
// Tables: `<events>(id, occurred_at, feed_seq bigint null)` with a partial index on
// `(occurred_at, id) where feed_seq is null`, and `<counter>(id int primary key, last bigint)` holding
// the one row `(1, 0)`.

/** Rows numbered per run at most (a run is one short statement; the next run takes the rest). */
const PUBLISH_BATCH = 2000;

export interface FeedTables {
  events: string;
  counter: string;
}

/**
 * Numbers the committed rows that have no place in the feed yet, in (occurred_at, id) order. Returns
 * how many it numbered; 0 also when another run holds the counter (its rows appear when it commits).
 */
export async function publishFeed(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service's database
  db: Kysely<any>,
  tables: FeedTables,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const counter = await sql<{ last: string }>`
      select last::text as last from ${sql.table(tables.counter)} where id = 1 for update skip locked`.execute(
      trx,
    );
    const last = counter.rows[0]?.last;
    if (last === undefined) return 0;
    const numbered = await sql`
      update ${sql.table(tables.events)} as e set feed_seq = ${last}::bigint + n.rn
      from (
        select id, row_number() over (order by occurred_at, id) as rn
        from ${sql.table(tables.events)} where feed_seq is null
        order by occurred_at, id limit ${PUBLISH_BATCH}
      ) as n
      where e.id = n.id`.execute(trx);
    const count = Number(numbered.numAffectedRows ?? 0);
    if (count > 0)
      await sql`update ${sql.table(tables.counter)} set last = last + ${count} where id = 1`.execute(trx);
    return count;
  });
}

/** The highest place numbered so far (a cursor beyond it names no position of this feed). */
export async function feedHead(db: QueryExecutorProvider, tables: FeedTables): Promise<bigint> {
  const row = await sql<{ last: string }>`
    select last::text as last from ${sql.table(tables.counter)} where id = 1`.execute(db);
  return BigInt(row.rows[0]?.last ?? '0');
}
