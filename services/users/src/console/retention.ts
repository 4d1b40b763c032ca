import type { Clock } from '@acme/db/clock';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { UsersDb } from '../db-types.ts';
import { deleteExpiredEvents } from '../events/events.ts';

const HOUR_MS = 3_600_000;

/**
 * Runs the security events' retention once an hour (and once at start): deletes events older than
 * `SECURITY_EVENTS_RETENTION_DAYS` in batches of `SECURITY_EVENTS_CLEANUP_BATCH`. Several instances
 * may run it at once: each batch is an idempotent delete.
 */
export function startEventRetention(
  options: { db: Kysely<UsersDb>; config: Config; clock: Clock; onError: (error: unknown) => void },
  intervalMs = HOUR_MS,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = deleteExpiredEvents(
      options.db,
      options.clock.now(),
      options.config.securityEvents.retentionDays,
      options.config.securityEvents.cleanupBatch,
    ).catch(options.onError);
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
