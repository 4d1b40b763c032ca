import { sql } from 'kysely';
import type { Db } from '../db/db.ts';

/** "Last active" is written at most once per this interval per session. */
const ACTIVITY_INTERVAL_MS = 5 * 60_000;

/**
 * Records that a session was used, at most once per `ACTIVITY_INTERVAL_MS`: each instance remembers
 * when it last wrote a session (so a cached whoami costs no database round trip in between), and the
 * write itself only moves a time that is older than the interval (so several instances write once
 * between them). The table has no change trigger: writing it never invalidates the session cache.
 */
export class SessionActivity {
  private readonly written = new Map<string, number>();
  private readonly maxEntries: number;
  constructor(maxEntries = 100_000) {
    this.maxEntries = maxEntries;
  }

  /** Whether `sessionId` is due for a write at `now` (nothing is written). */
  due(sessionId: string, now: Date): boolean {
    const last = this.written.get(sessionId);
    return last === undefined || now.getTime() - last >= ACTIVITY_INTERVAL_MS;
  }

  async touch(db: Db, sessionId: string, now: Date): Promise<void> {
    if (!this.due(sessionId, now)) return;
    if (this.written.size >= this.maxEntries) this.written.clear();
    this.written.set(sessionId, now.getTime());
    const staleBefore = new Date(now.getTime() - ACTIVITY_INTERVAL_MS);
    await sql`insert into identity_session_activity as a (session_id, last_active_at)
      values (${sessionId}, ${now})
      on conflict (session_id) do update set last_active_at = excluded.last_active_at
      where a.last_active_at <= ${staleBefore}`.execute(db);
  }
}

/** Last activity of each of `sessionIds` (absent: never recorded). */
export async function lastActive(db: Db, sessionIds: string[]): Promise<Map<string, Date>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('identity_session_activity')
    .select(['session_id', 'last_active_at'])
    .where('session_id', 'in', sessionIds)
    .execute();
  return new Map(rows.map((r) => [r.session_id, new Date(r.last_active_at)]));
}
