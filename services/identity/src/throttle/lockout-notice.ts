import type { IdentityContext } from '../context.ts';
import type { Db } from '../db/db.ts';
import { queueLockoutNotice } from '../identities/notices.ts';
import { lockoutStands, type AccountAttempt } from './attempts.ts';

/**
 * For a failed attempt that started a lockout: the `commit` that queues the lockout notice to `to`
 * (the owner of an existing account) in the transaction that stores the flow, if the lockout still
 * stands then. One admission starts each lockout, so the notice goes once per lockout start, not per
 * failure. For an unknown address (`to` undefined) the same transaction and lookup run without the
 * mail, so the answer and its cost stay those of a known address.
 */
export function lockoutNotice(
  service: Pick<IdentityContext, 'mailer' | 'config' | 'metrics'>,
  attempt: Pick<AccountAttempt<object>, 'lockStartedUntil'>,
  key: string,
  to: string | undefined,
  factor: 'password' | 'second_factor',
): { commit?: (trx: Db) => Promise<void> } {
  const until = attempt.lockStartedUntil;
  if (!until) return {};
  service.metrics.lockoutStarted(factor);
  return {
    async commit(trx) {
      const stands = await lockoutStands(trx, key, until);
      if (stands && to) await queueLockoutNotice(service, { to, until }, trx);
    },
  };
}
