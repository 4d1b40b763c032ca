import type { UiText } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import type { Outcome } from '../flows/outcome.ts';
import type { Db } from '../db/db.ts';
import type { FlowRow } from '../db/schema.ts';
import { recordSecurityEvent } from '../db/security-events.ts';
import type { ActiveSession } from '../sessions/repo.ts';
import { getCredential, identityEmail, normalizeEmail } from '../identities/repo.ts';
import { messages } from '../ui/messages.ts';
import { admitAccountAttempt } from '../throttle/attempts.ts';
import { normalizeIdentifier } from '../throttle/backoff.ts';
import { CODE_SCOPE, admitCodeAttempt } from '../throttle/code-guard.ts';
import { lockoutNotice } from '../throttle/lockout-notice.ts';

/** An admitted second-factor attempt: check the secret, then answer `wrong()` or `right()`. */
export interface SecondFactorAttempt {
  /** The failure answer (counted on the flow; mails the owner when it started a lockout). */
  wrong(message?: UiText): Outcome;
  /** The secret was right: the account's lockout count starts again and the guard's attempts are given back. */
  right(): Promise<void>;
}

type Credential = NonNullable<Awaited<ReturnType<typeof getCredential>>>;

/**
 * The one admission of every second-factor code at login (TOTP and backup codes), counted before the
 * code is compared, atomically in PostgreSQL:
 * - on the account's password lockout (`attempts.ts`): one counter for passwords and second factors;
 *   a running lockout answers like a wrong code;
 * - on the code guard's per-account budget (`CODE_SCOPE.totpAccount`: 10 per hour across every flow,
 *   shared by TOTP and backup codes) and the per-IP code budget.
 * The per-flow cap is the engine's attempt counter (`maxAttempts` of the strategy, one counter per
 * flow whatever the method). Answers either a refusal to return as is, or the admitted attempt with
 * the account's credential of the method. Without one, nothing is checked: the account's count is
 * given back and the answer is `missing`.
 */
export async function admitSecondFactor(
  service: IdentityContext,
  p: {
    flow: FlowRow;
    session: ActiveSession;
    client: { ip: string; userAgent: string };
    now: Date;
    /** The credential checked; also named in the security event of a wrong code. */
    method: 'totp' | 'lookup_secret';
    /** The answer when the account has no credential of the method. */
    missing: UiText;
  },
): Promise<{ refused: Outcome } | { admitted: SecondFactorAttempt; credential: Credential }> {
  const { flow, session, now } = p;
  const identityId = session.row.identity_id;
  const address = normalizeEmail(identityEmail(session.identity, identityId));
  const key = normalizeIdentifier(address);
  const wrongOutcome = (message = messages.invalidTotp()): Outcome => ({
    type: 'flow_updated',
    messages: [{ pointer: '#/', message }],
    countAttempt: true,
  });
  const account = await admitAccountAttempt(service.db, { key, now, policy: service.config.lockout });
  if (account.refused) return { refused: wrongOutcome() };
  const limits = service.config.totpLimits;
  const guard = await admitCodeAttempt(service.db, {
    flowId: flow.id,
    flowKey: 'totp_guard_attempts',
    subject: identityId,
    subjectScope: CODE_SCOPE.totpAccount,
    ip: p.client.ip,
    now,
    limits: {
      // The per-flow cap is the engine's attempt counter (`maxAttempts`); the atomic per-account
      // count bounds what parallel submits of one flow could overshoot.
      perFlow: Number.POSITIVE_INFINITY,
      perAddress: limits.perAccount,
      windowMs: limits.windowMs,
      perIp: service.config.codeLimits.perIp,
      ipWindowMs: service.config.codeLimits.ipWindowMs,
    },
  });
  if (guard.refused) {
    await account.giveBack(); // no code was checked
    const message =
      guard.refused === 'ip' ? messages.codeNetworkLocked(guard.retryAfterSec) : messages.totpLocked();
    return { refused: { type: 'flow_updated', messages: [{ pointer: '#/', message }], countAttempt: true } };
  }
  const credential = await getCredential(service.db, identityId, p.method);
  if (!credential) {
    await account.giveBack(); // no code was checked
    return { refused: { type: 'flow_updated', messages: [{ pointer: '#/', message: p.missing }] } };
  }
  return {
    credential,
    admitted: {
      wrong: (message) => {
        const notice = lockoutNotice(service, account, key, address, 'second_factor').commit;
        return {
          ...wrongOutcome(message),
          async commit(trx) {
            await notice?.(trx);
            await secondFactorFailed(trx, service, p, account.lockStartedUntil);
          },
        };
      },
      async right() {
        await guard.settle(true);
        await account.settle(true);
      },
    },
  };
}

/** The security events of a wrong second-factor code: the failure, and the lockout it started. */
async function secondFactorFailed(
  trx: Db,
  service: IdentityContext,
  p: { session: ActiveSession; client: { ip: string; userAgent: string }; now: Date; method: string },
  lockedUntil: Date | undefined,
): Promise<void> {
  const base = {
    subjectId: p.session.row.identity_id,
    client: p.client,
    at: p.now,
  };
  await recordSecurityEvent(trx, service, {
    ...base,
    type: 'signin.failed',
    details: { method: p.method, reason: 'invalid_code' },
  });
  if (lockedUntil)
    await recordSecurityEvent(trx, service, {
      ...base,
      type: 'account.locked',
      actor: { kind: 'system', id: null },
      details: { until: lockedUntil.toISOString(), method: p.method },
    });
}
