import { sql, type Kysely } from 'kysely';
import { deleteInBatches } from '@acme/db/batched-delete';
import type { IdentityDb } from './schema.ts';

const DAY = 24 * 3600_000;
/** Rows per delete statement: a backlog of a million expired sessions never becomes one long transaction. */
const CLEANUP_BATCH = 1000;

/**
 * Deletes what can no longer be used: flows a day after expiry, sessions a week after expiry or
 * revocation, stored self-service errors after a week, and stale throttle windows (lockouts that
 * are still running are kept). Each table in batches of `batchSize` rows, each batch its own
 * statement (an index on each condition keeps a batch's lookup short at any size). Safe to run
 * from several instances at once.
 */
export async function cleanupExpired(
  db: Kysely<IdentityDb>,
  now: Date,
  batchSize = CLEANUP_BATCH,
): Promise<void> {
  const dayAgo = new Date(now.getTime() - DAY);
  const weekAgo = new Date(now.getTime() - 7 * DAY);
  const purge = (table: string, where: ReturnType<typeof sql>) =>
    deleteInBatches(db, { table, where, batchSize });
  await purge('identity_flows', sql`expires_at < ${dayAgo}`);
  await purge('identity_sessions', sql`expires_at < ${weekAgo}`);
  await purge('identity_sessions', sql`active = false and updated_at < ${weekAgo}`);
  await purge('identity_errors', sql`created_at < ${weekAgo}`);
  // Social sign-in states live minutes; one whose sign-in was abandoned is dead a day later.
  await purge('identity_oidc_states', sql`expires_at < ${dayAgo}`);
  // A challenge lives minutes (IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN): a day after spending it is dead anyway.
  await purge('identity_webauthn_spent_challenges', sql`spent_at < ${dayAgo}`);
  // SAML requests live 30 minutes and spent assertion ids until their assertion's NotOnOrAfter.
  await purge('identity_saml_requests', sql`expires_at < ${dayAgo}`);
  await purge('identity_saml_spent_assertions', sql`expires_at < ${dayAgo}`);
  // Budget windows last an hour or minutes by default; a day-old window is over.
  await purge('identity_attempts', sql`window_start < ${dayAgo}`);
  await purge(
    'identity_login_throttle',
    sql`updated_at < ${weekAgo} and (locked_until is null or locked_until < ${now})`,
  );
}
