import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { IdentityDb } from '../db/schema.ts';
import { refundBudget, takeBudget } from './attempts.ts';

type Db = Kysely<IdentityDb>;

/**
 * One-time codes (recovery, verification) and second-factor codes against guessing.
 *
 * A six-digit code has a million values; what keeps guessing hopeless is how few guesses anyone
 * gets. Four budgets, each counted atomically in PostgreSQL before the code is compared:
 * - per flow: 5 wrong codes, after which that flow's code is dead for good (a resend does not
 *   reset it, and a dead flow cannot be revived);
 * - per address (recovery, verification) or per account (second factor): 10 wrong codes per hour
 *   across every flow and resend, after which even the right code is refused until the hour ends;
 * - per IP: a budget of code attempts per hour, whatever the address (200 by default, sized so
 *   that an office behind one NAT never reaches it by typing mistakes; see docs/security.md).
 * A right code gives back its address and IP attempt (it was no guess); an attempt refused by the
 * address budget gives back its IP attempt (no code was compared).
 */

export const CODE_SCOPE = {
  address: 'code:address',
  ip: 'ip:code',
  totpAccount: 'totp:identity',
} as const;

/** Stored form of a one-time code: HMAC-SHA-256 under the server's secret, bound to its flow. */
export function hmacCode(secret: string, flowId: string, code: string): string {
  return createHmac('sha256', secret).update(`${flowId}:${code}`).digest('hex');
}

/**
 * Constant-time comparison of a submitted code with the stored HMAC under each configured secret (a
 * code stored before a rotation of IDENTITY_CODE_SECRET still matches); false for malformed input.
 */
export function codeMatchesHmac(
  secrets: readonly string[],
  flowId: string,
  code: unknown,
  stored: unknown,
): boolean {
  if (typeof code !== 'string' || typeof stored !== 'string' || !/^[0-9]{6}$/.test(code.trim())) return false;
  const b = Buffer.from(stored, 'hex');
  let matched = false;
  for (const secret of secrets) {
    const a = Buffer.from(hmacCode(secret, flowId, code.trim()), 'hex');
    matched = (a.length === b.length && timingSafeEqual(a, b)) || matched;
  }
  return matched;
}

/**
 * Counts one attempt on a flow's own counter (`internal[key]`) and answers the new count, in one
 * `UPDATE … RETURNING`, so parallel submits of one flow cannot all read the old count.
 */
async function countFlowAttempt(db: Db, flowId: string, key: string, now: Date): Promise<number> {
  const r = await sql<{ n: number }>`
    update identity_flows
    set internal = jsonb_set(internal, ${sql.lit(`{${key}}`)}::text[],
          to_jsonb(coalesce((internal->>${key})::int, 0) + 1)),
        updated_at = ${now}
    where id = ${flowId}
    returning (internal->>${key})::int as n`.execute(db);
  return r.rows[0]?.n ?? Number.POSITIVE_INFINITY;
}

type CodeRefusal = 'flow' | 'address' | 'ip';

export interface CodeAttempt {
  /** Why the attempt may not compare its code, if it may not. */
  refused?: CodeRefusal;
  retryAfterSec?: number;
  /** Gives back the address and IP attempts after a right code. */
  settle(correct: boolean): Promise<void>;
}

export interface CodeLimits {
  perFlow: number;
  perAddress: number;
  windowMs: number;
  perIp: number;
  ipWindowMs: number;
}

/**
 * Admits one code submission on a flow for an address (or, for second factors, an identity id as
 * `subject` with its own scope). Counts flow, subject and IP; the first exhausted budget refuses.
 */
export async function admitCodeAttempt(
  db: Db,
  p: {
    flowId: string;
    flowKey: string;
    subject: string | null;
    subjectScope: string;
    ip: string;
    now: Date;
    limits: CodeLimits;
  },
): Promise<CodeAttempt> {
  const { limits, now } = p;
  const taken: { scope: string; key: string }[] = [];
  const settle = async (correct: boolean) => {
    if (!correct) return;
    for (const t of taken) await refundBudget(db, t.scope, t.key);
  };
  // A caller whose flow cap is the engine's own attempt counter passes an infinite per-flow limit:
  // then there is nothing to count here.
  if (Number.isFinite(limits.perFlow)) {
    const perFlow = await countFlowAttempt(db, p.flowId, p.flowKey, now);
    if (perFlow > limits.perFlow) return { refused: 'flow', settle };
  }
  const ip = await takeBudget(db, CODE_SCOPE.ip, p.ip, now, {
    limit: limits.perIp,
    windowMs: limits.ipWindowMs,
  });
  taken.push({ scope: CODE_SCOPE.ip, key: p.ip });
  if (!ip.allowed) return { refused: 'ip', retryAfterSec: ip.retryAfterSec, settle };
  if (p.subject !== null) {
    const subject = await takeBudget(db, p.subjectScope, p.subject, now, {
      limit: limits.perAddress,
      windowMs: limits.windowMs,
    });
    taken.push({ scope: p.subjectScope, key: p.subject });
    if (!subject.allowed) {
      // No code is compared: the IP (perhaps a whole office behind one NAT) gets its attempt back.
      await refundBudget(db, CODE_SCOPE.ip, p.ip);
      return { refused: 'address', retryAfterSec: subject.retryAfterSec, settle };
    }
  }
  return { settle };
}
