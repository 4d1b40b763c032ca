import { sql } from 'kysely';
import { errors } from '../../errors/identity-error.ts';
import type { Strategy } from '../../flows/strategy.ts';
import { admitSecondFactor } from '../second-factor.ts';
import { messages } from '../../ui/messages.ts';
import { totpLoginNodes } from '../../ui/nodes.ts';
import { MAX_TOTP_ATTEMPTS, readTotpCode } from './read-code.ts';
import { verifyTotp } from './totp.ts';

/**
 * Second factor at login (aal2 flows). Wrong codes answer 4000008 in `ui.messages`; after 5 wrong
 * codes the flow is dead. Each time step is accepted once (the last accepted step is stored and the
 * update is conditional, so two concurrent submits of one code cannot both pass).
 *
 * Guessing is bounded by the code guard as well, counted atomically before the code is compared:
 * per flow, per account per hour across every flow (a password success does not reset this count,
 * so alternating password logins with guesses gains nothing) and per IP. Once the account budget is
 * spent even the right code is refused until the window ends.
 *
 * Each code also counts on the account's password lockout (`throttle/attempts.ts`, admitted before
 * the check like a password): a running lockout refuses it like a wrong code, and the failure that
 * starts a lockout mails the owner once. Backup codes (`lookup_secret`) go through the same
 * admission (`strategies/second-factor.ts`), so they share every one of these counts.
 */
export const totpLogin: Strategy = {
  method: 'totp',
  group: 'totp',
  accepts: (flow) => flow.requested_aal === 'aal2',
  nodes: () => totpLoginNodes(),
  maxAttempts: MAX_TOTP_ATTEMPTS,
  async submit(flow, input, context) {
    const { service, now, session, attempts } = context;
    if (!session) return { type: 'error', error: errors.aal1Required() };
    const attempt = readTotpCode(attempts, input);
    if ('refused' in attempt) return attempt.refused;
    const identityId = session.row.identity_id;
    // Admitted on the account's lockout and the code guard, atomically and before the code is
    // checked (the same admission as backup codes).
    const admission = await admitSecondFactor(service, {
      ...context,
      flow,
      session,
      method: 'totp',
      missing: messages.noTotp(),
    });
    if ('refused' in admission) return admission.refused;
    const { admitted, credential } = admission;
    const fail = () => admitted.wrong();
    const secret = String(credential.config.secret ?? '');
    const lastStep =
      typeof credential.config.last_step === 'number' ? credential.config.last_step : undefined;
    const step = verifyTotp(secret, attempt.code, now, lastStep);
    if (step === null) return fail();
    const claimed = await sql`update identity_credentials
      set config = jsonb_set(config, '{last_step}', to_jsonb(${step}::int)), updated_at = ${now}
      where id = ${credential.id} and coalesce((config->>'last_step')::int, -1) < ${step}`.execute(
      service.db,
    );
    if (Number(claimed.numAffectedRows ?? 0) !== 1) return fail();
    await admitted.right();
    return { type: 'success', identityId, method: 'totp' };
  },
};
