import { sql, type Kysely } from 'kysely';
import { deleteInBatches } from '@acme/db/batched-delete';
import type { IdentityRetention } from '../config.ts';
import type { IdentityDb } from './schema.ts';

const DAY = 24 * 3600_000;
/** Rows per delete statement: a backlog of a million expired sessions never becomes one long transaction. */
const CLEANUP_BATCH = 1000;

/**
 * Deletes what can no longer be used, once it has been over for its retention
 * (`SPENT_RECORDS_RETENTION_HOURS`, `IDENTITY_ENDED_SESSIONS_RETENTION_DAYS`): flows, social sign-in
 * states, spent passkey challenges, SAML requests and spent assertion ids, and attempt windows after
 * the spent records' retention; sessions after expiry or revocation and stored self-service errors
 * after the sessions' retention; and login throttle rows a week after their last failure (lockouts
 * that are still running are kept). Each table in batches of `batchSize` rows, each batch its own
 * statement (an index on each condition keeps a batch's lookup short at any size). Safe to run
 * from several instances at once.
 */
export async function cleanupExpired(
  db: Kysely<IdentityDb>,
  now: Date,
  retention: IdentityRetention,
  batchSize = CLEANUP_BATCH,
): Promise<void> {
  const spentBefore = new Date(now.getTime() - retention.spentMs);
  const endedBefore = new Date(now.getTime() - retention.endedSessionsMs);
  const weekAgo = new Date(now.getTime() - 7 * DAY);
  const purge = (table: string, where: ReturnType<typeof sql>) =>
    deleteInBatches(db, { table, where, batchSize });
  await purge('identity_flows', sql`expires_at < ${spentBefore}`);
  await purge('identity_sessions', sql`expires_at < ${endedBefore}`);
  await purge('identity_sessions', sql`active = false and updated_at < ${endedBefore}`);
  await purge('identity_errors', sql`created_at < ${endedBefore}`);
  // Social sign-in states live minutes; one whose sign-in was abandoned is dead once it expired.
  await purge('identity_oidc_states', sql`expires_at < ${spentBefore}`);
  // A spent challenge is kept while the challenge could still be answered (it is refused as spent).
  const challengesBefore = new Date(now.getTime() - retention.spentChallengesMs);
  await purge('identity_webauthn_spent_challenges', sql`spent_at < ${challengesBefore}`);
  // SAML requests live 30 minutes and spent assertion ids until their assertion's NotOnOrAfter plus
  // the clock skew: a replay after that is refused as expired, so the spent id is no longer needed.
  await purge('identity_saml_requests', sql`expires_at < ${spentBefore}`);
  const assertionsBefore = new Date(now.getTime() - retention.spentAssertionsMs);
  await purge('identity_saml_spent_assertions', sql`expires_at < ${assertionsBefore}`);
  // Budget windows last an hour or minutes by default: one older than the longest window is over.
  const windowsBefore = new Date(Math.min(spentBefore.getTime(), now.getTime() - DAY));
  await purge('identity_attempts', sql`window_start < ${windowsBefore}`);
  await purge(
    'identity_login_throttle',
    sql`updated_at < ${weekAgo} and (locked_until is null or locked_until < ${now})`,
  );
}
