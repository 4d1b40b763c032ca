import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { z } from 'zod';
import { requestJson } from '../clients/http-json.ts';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';

/** What a member's page shows of their sign-ins (issue 24): the last one, and the lockout. */
export interface SignInFacts {
  lastSignIn: { at: string; method: string; ip: string | null } | null;
  lockout: { locked: boolean; lockedUntil: string | null; failedAttempts: number };
}

const signInSchema = z.object({
  last_sign_in: z
    .object({ at: z.string(), method: z.string(), ip_address: z.string().nullable() })
    .nullable(),
  lockout: z.object({
    locked: z.boolean(),
    locked_until: z.string().nullable(),
    failed_attempts: z.number().int(),
  }),
});

/** From the identity service's admin API (`GET /admin/identities/:id/sign-in`); null when the identity is gone. */
export async function signInFacts(ctx: UsersContext, identityId: string): Promise<SignInFacts | null> {
  const res = await requestJson(
    'identity service',
    `${ctx.config.identityAdminUrl}/admin/identities/${encodeURIComponent(identityId)}/sign-in`,
    {
      method: 'GET',
      headers: adminAuthHeaders(ctx.config.identityAdminKey),
      timeoutMs: ctx.config.upstreamTimeoutMs,
    },
  );
  if (res.status === 404) return null;
  const parsed = signInSchema.safeParse(res.body);
  if (res.status !== 200 || !parsed.success) {
    throw new AppError('UPSTREAM_ERROR', `The identity service answered ${res.status} for sign-in facts.`);
  }
  const { last_sign_in: last, lockout } = parsed.data;
  return {
    lastSignIn: last ? { at: last.at, method: last.method, ip: last.ip_address } : null,
    lockout: {
      locked: lockout.locked,
      lockedUntil: lockout.locked_until,
      failedAttempts: lockout.failed_attempts,
    },
  };
}
