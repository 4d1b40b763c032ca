import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { AppError } from '../http/errors.ts';
import { requestJson } from './http-json.ts';

/** One identity security event as the identity service's admin API lists it. */
export const identityEventSchema = z.object({
  id: z.string(),
  occurred_at: z.string(),
  type: z.string(),
  actor_kind: z.string(),
  actor_id: z.string().nullable(),
  subject_id: z.string(),
  ip_address: z.string().nullable(),
  user_agent: z.string().nullable(),
  request_id: z.string().nullable(),
  details: z.record(z.string(), z.string()),
});

/**
 * `GET /admin/security-events?<query>` on the identity service's admin API: the named identities'
 * events (`subject_id`), or the cursor feed (`after`), each checked against `item`.
 */
export async function getIdentityEvents<S extends z.ZodType>(
  config: Pick<Config, 'identityAdminUrl' | 'identityAdminKey' | 'upstreamTimeoutMs'>,
  query: URLSearchParams,
  item: S,
): Promise<z.output<S>[]> {
  const res = await requestJson(
    'identity service',
    `${config.identityAdminUrl}/admin/security-events?${query}`,
    {
      method: 'GET',
      headers: adminAuthHeaders(config.identityAdminKey),
      timeoutMs: config.upstreamTimeoutMs,
    },
  );
  const parsed = z.array(item).safeParse(res.body);
  if (res.status !== 200 || !parsed.success) {
    throw new AppError('UPSTREAM_ERROR', `The identity service answered ${res.status} for security events.`);
  }
  return parsed.data;
}
