import type { Kysely } from 'kysely';
import type { IdentityDb } from './schema.ts';

const DAY = 24 * 3600_000;

/**
 * Deletes what can no longer be used: flows a day after expiry, sessions a week after expiry or
 * revocation, stored self-service errors after a week, and stale throttle windows (lockouts that
 * are still running are kept). Safe to run from several instances at once.
 */
export async function cleanupExpired(db: Kysely<IdentityDb>, now: Date): Promise<void> {
  const dayAgo = new Date(now.getTime() - DAY);
  const weekAgo = new Date(now.getTime() - 7 * DAY);
  await db.deleteFrom('identity_flows').where('expires_at', '<', dayAgo).execute();
  await db
    .deleteFrom('identity_sessions')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<', weekAgo),
        eb.and([eb('active', '=', false), eb('updated_at', '<', weekAgo)]),
      ]),
    )
    .execute();
  await db.deleteFrom('identity_errors').where('created_at', '<', weekAgo).execute();
  // A challenge lives minutes (IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN): a day after spending it is dead anyway.
  await db.deleteFrom('identity_webauthn_spent_challenges').where('spent_at', '<', dayAgo).execute();
  // SAML requests live 30 minutes and spent assertion ids until their assertion's NotOnOrAfter.
  await db.deleteFrom('identity_saml_requests').where('expires_at', '<', dayAgo).execute();
  await db.deleteFrom('identity_saml_spent_assertions').where('expires_at', '<', dayAgo).execute();
  // Budget windows last an hour or minutes by default; a day-old window is over.
  await db.deleteFrom('identity_attempts').where('window_start', '<', dayAgo).execute();
  await db
    .deleteFrom('identity_login_throttle')
    .where('updated_at', '<', weekAgo)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .execute();
}
