import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { z } from 'zod';
import { requestJson } from '../clients/http-json.ts';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';

/** What a member's page shows of their identity: its state, how they sign in, whether 2FA is set. */
export interface IdentityFacts {
  state: string | null;
  signInMethods: string[];
  twoFactor: boolean;
}

const SECOND_FACTORS = new Set(['totp', 'lookup_secret', 'webauthn']);

const identitySchema = z.object({
  state: z.string().optional(),
  credentials: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Reads the identity from the identity service's admin API (`GET /admin/identities/:id`): the
 * credential types only, never their configuration (hashes, secrets). Null when it is gone.
 */
export async function identityFacts(ctx: UsersContext, identityId: string): Promise<IdentityFacts | null> {
  const res = await requestJson(
    'identity service',
    `${ctx.config.identityAdminUrl}/admin/identities/${encodeURIComponent(identityId)}`,
    {
      method: 'GET',
      headers: adminAuthHeaders(ctx.config.identityAdminKey),
      timeoutMs: ctx.config.upstreamTimeoutMs,
    },
  );
  if (res.status === 404) return null;
  const parsed = identitySchema.safeParse(res.body);
  if (res.status !== 200 || !parsed.success) {
    throw new AppError('UPSTREAM_ERROR', `The identity service answered ${res.status} for an identity.`);
  }
  const types = Object.keys(parsed.data.credentials ?? {}).sort();
  return {
    state: parsed.data.state ?? null,
    signInMethods: types.filter((t) => !SECOND_FACTORS.has(t)),
    twoFactor: types.some((t) => SECOND_FACTORS.has(t)),
  };
}
