import { deleteInBatches } from '@acme/db/batched-delete';
import type { Clock } from '@acme/db/clock';
import { sql, type Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { UsersDb } from '../db-types.ts';
import { deleteExpiredEvents } from '../events/events.ts';
import { deleteOrganisationEvents } from './event-retention.ts';

const HOUR_MS = 3_600_000;

/**
 * Deletes what has ended and been kept its retention: finished webhook deliveries (delivered or
 * abandoned) after `WEBHOOK_DELIVERIES_RETENTION_DAYS`; the console's SSO test sign-ins and Git
 * link states `SPENT_RECORDS_RETENTION_HOURS` after they expired (used or not: they live minutes).
 * Pending and failing deliveries stay whatever their age. Batches of `batchSize`, each its own
 * statement on an index of its condition.
 */
export async function deleteEndedRecords(
  db: Kysely<UsersDb>,
  now: Date,
  retention: Config['retention'],
  batchSize: number,
): Promise<void> {
  const spentBefore = new Date(now.getTime() - retention.spentMs);
  const deliveredBefore = new Date(now.getTime() - retention.finishedDeliveriesMs);
  await deleteInBatches(db, {
    table: 'webhook_deliveries',
    where: sql`status in ('delivered', 'abandoned') and created_at < ${deliveredBefore}`,
    batchSize,
  });
  await deleteInBatches(db, {
    table: 'sso_test_sign_ins',
    where: sql`expires_at < ${spentBefore}`,
    batchSize,
  });
  await deleteInBatches(db, { table: 'git_auth_states', where: sql`expires_at < ${spentBefore}`, batchSize });
}

/**
 * Runs the retention once an hour (and once at start): security events (and the feed that mirrors
 * them) older than `SECURITY_EVENTS_RETENTION_DAYS`, or than an organisation's own retention, then the ended records above, in batches of
 * `SECURITY_EVENTS_CLEANUP_BATCH`. Several instances may run it at once: each batch is an
 * idempotent delete.
 */
export function startEventRetention(
  options: { db: Kysely<UsersDb>; config: Config; clock: Clock; onError: (error: unknown) => void },
  intervalMs = HOUR_MS,
): { stop(): Promise<void> } {
  const { retentionDays, cleanupBatch } = options.config.securityEvents;
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    const now = options.clock.now();
    running = deleteExpiredEvents(options.db, now, retentionDays, cleanupBatch)
      .then(() => deleteOrganisationEvents(options.db, now, cleanupBatch))
      .then(() => deleteEndedRecords(options.db, now, options.config.retention, cleanupBatch))
      .catch(options.onError);
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
