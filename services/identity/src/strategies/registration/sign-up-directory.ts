import { z } from 'zod';
import { requestIdHeaders } from '@acme/service-kit/request-id';
import type { IdentityContext } from '../../context.ts';

// Organisation self sign-up (issue 25) is the user service's to decide: whether any organisation has
// it open (else registration is "disabled", as Kratos answers), and creating the member, through the
// user service's one creation path (user row, identity, link), on `POST /admin/signup/members`.

const openSchema = z.object({ open: z.boolean() });
const memberSchema = z.object({ userId: z.string(), identityId: z.string() });
const errorSchema = z.object({ errorCode: z.string(), message: z.string() });

/** What the user service said no to: the domain is not open (`SELF_SIGNUP_NOT_ALLOWED`), a duplicate (`USER_EXISTS`), … */
export class SignUpRefused extends Error {
  readonly errorCode: string;
  constructor(errorCode: string, message: string) {
    super(message);
    this.errorCode = errorCode;
  }
}

const cache = new WeakMap<object, { open: boolean; until: number }>();

function call(ctx: Pick<IdentityContext, 'config'>, path: string, init: RequestInit = {}): Promise<Response> {
  const key = ctx.config.usersAdminKey;
  return fetch(`${ctx.config.usersAdminUrl}${path}`, {
    ...init,
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...requestIdHeaders(),
    },
    signal: AbortSignal.timeout(ctx.config.upstreamTimeoutMs),
  });
}

/**
 * Whether any organisation has self sign-up open, held for IDENTITY_SIGNUP_OPEN_CACHE (30 s by
 * default). When the user service can not be
 * asked, the last answer stands; with none, registration is off (closed is the safe default).
 */
export async function signUpOpen(ctx: Pick<IdentityContext, 'config' | 'clock'>): Promise<boolean> {
  const now = ctx.clock.now().getTime();
  const hit = cache.get(ctx.config);
  if (hit && hit.until > now) return hit.open;
  try {
    const res = await call(ctx, '/admin/signup');
    if (!res.ok) throw new Error(`user service answered ${res.status} for self sign-up`);
    const { open } = openSchema.parse(await res.json());
    cache.set(ctx.config, { open, until: now + ctx.config.signUpOpenCacheMs });
    return open;
  } catch {
    return hit?.open ?? false;
  }
}

/** Creates the member (and their identity) through the user service; throws `SignUpRefused` on a 4xx. */
export async function signUpMember(
  ctx: Pick<IdentityContext, 'config'>,
  person: { email: string; firstName: string; lastName: string; password: string },
): Promise<{ userId: string; identityId: string }> {
  const res = await call(ctx, '/admin/signup/members', { method: 'POST', body: JSON.stringify(person) });
  const body: unknown = await res.json().catch(() => undefined);
  if (res.ok) return memberSchema.parse(body);
  const error = errorSchema.safeParse(body);
  if (res.status < 500 && error.success) throw new SignUpRefused(error.data.errorCode, error.data.message);
  throw new Error(`user service answered ${res.status} for a self sign-up`);
}
