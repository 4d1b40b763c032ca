import { z } from 'zod';
import { requestIdHeaders } from '@acme/service-kit/request-id';

// The organisations' identity providers, as the user service keeps them (decision record 0012):
// read through its admin API, held in memory for a short time only.

const ssoProviderSchema = z.object({
  provider: z.string(),
  organisationId: z.string(),
  issuer: z.string().url(),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  scopes: z.array(z.string()),
  claimMapping: z.object({
    email: z.string(),
    emailVerified: z.string(),
    firstName: z.string(),
    lastName: z.string(),
  }),
  jit: z.boolean(),
  userinfo: z.boolean(),
  domains: z.array(z.string()),
});

export type SsoProvider = z.infer<typeof ssoProviderSchema>;

const memberSchema = z.object({ userId: z.string(), identityId: z.string() });
const errorSchema = z.object({ errorCode: z.string(), message: z.string() });

/** Why the user service would not give us a member. */
export class MemberRefused extends Error {
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ProviderDirectory {
  /** The provider's configuration, or undefined when no organisation has this provider id. */
  get(provider: string): Promise<SsoProvider | undefined>;
  /** The user-service member for a person the provider vouched for (created just in time). */
  member(
    provider: string,
    person: { email: string; firstName?: string; lastName?: string },
  ): Promise<{ userId: string; identityId: string }>;
}

const CACHE_MS = 30_000;

export function createProviderDirectory(usersAdminUrl: string, timeoutMs = 10_000): ProviderDirectory {
  const base = usersAdminUrl.replace(/\/+$/, '');
  const cache = new Map<string, { value: SsoProvider | undefined; until: number }>();
  const idOk = (id: string) => /^[a-z0-9][a-z0-9-]{0,62}$/.test(id);

  return {
    async get(provider) {
      if (!idOk(provider)) return undefined;
      const hit = cache.get(provider);
      if (hit && hit.until > Date.now()) return hit.value;
      const res = await fetch(`${base}/admin/sso/providers/${provider}`, {
        headers: requestIdHeaders(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      let value: SsoProvider | undefined;
      if (res.status === 404) value = undefined;
      else if (res.ok) value = ssoProviderSchema.parse(await res.json());
      else throw new Error(`user service answered ${res.status} for an SSO provider`);
      cache.set(provider, { value, until: Date.now() + CACHE_MS });
      return value;
    },
    async member(provider, person) {
      if (!idOk(provider)) throw new MemberRefused('SSO_NOT_CONFIGURED', 'Unknown provider.');
      const res = await fetch(`${base}/admin/sso/providers/${provider}/members`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...requestIdHeaders() },
        body: JSON.stringify(person),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body: unknown = await res.json().catch(() => undefined);
      if (res.ok) return memberSchema.parse(body);
      const error = errorSchema.safeParse(body);
      if (res.status < 500 && error.success)
        throw new MemberRefused(error.data.errorCode, error.data.message);
      throw new Error(`user service answered ${res.status} for an SSO member`);
    },
  };
}
