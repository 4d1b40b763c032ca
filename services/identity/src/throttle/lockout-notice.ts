import type { IdentityContext } from '../context.ts';
import type { Db } from '../db/db.ts';
import { queueLockoutNotice } from '../identities/notices.ts';
import { lockoutStands, type AccountAttempt } from './attempts.ts';

/**
 * For a failed attempt that started a lockout of an existing account: the `commit` that queues the
 * lockout notice to `to` in the transaction that stores the flow, if the lockout still stands then.
 * One admission starts each lockout, so the notice goes once per lockout start, not per failure.
 * Callers pass nothing for unknown addresses, whose answer is the same and whose lockout is silent.
 */
export function lockoutNotice(
  service: Pick<IdentityContext, 'mailer' | 'config'>,
  attempt: Pick<AccountAttempt<object>, 'lockStartedUntil'>,
  key: string,
  to: string | undefined,
): { commit?: (trx: Db) => Promise<void> } {
  const until = attempt.lockStartedUntil;
  if (!until || !to) return {};
  return {
    async commit(trx) {
      if (await lockoutStands(trx, key, until)) await queueLockoutNotice(service, { to, until }, trx);
    },
  };
}
