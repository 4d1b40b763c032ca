import { z } from 'zod';
import type { Clock } from '@acme/db/clock';
import { fetchOnceMore } from '@acme/service-kit/once-more';
import { requestIdHeaders } from '@acme/service-kit/request-id';
import { catalogue } from '../../ui/messages.ts';

// The organisations' identity providers, as the user service keeps them (decision record 0012):
// read through its admin API, held in memory for a short time only.

const oidcProviderSchema = z.object({
  protocol: z.literal('oidc').default('oidc'),
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

/**
 * A SAML provider (issue 26): the IdP's entity id, its HTTP-Redirect SSO URL, its signing certificates
 * (two during a rollover), whether IdP-initiated sign-in is allowed, and which SAML Attribute Name
 * carries each field (`email` may be `nameid`: the NameID is the address).
 */
const samlProviderSchema = z.object({
  protocol: z.literal('saml'),
  provider: z.string(),
  organisationId: z.string(),
  jit: z.boolean(),
  domains: z.array(z.string()),
  saml: z.object({
    idpEntityId: z.string().min(1),
    ssoUrl: z.url(),
    certificates: z.array(z.string().min(1)).min(1).max(2),
    allowIdpInitiated: z.boolean().default(false),
    attributes: z.object({
      email: z.string().min(1),
      firstName: z.string().min(1),
      lastName: z.string().min(1),
      groups: z.string().min(1),
    }),
  }),
});

/** A provider without `protocol` is OIDC (the user service's answer before SAML existed). */
const anyProviderSchema = z.preprocess(
  (v) => (v && typeof v === 'object' && !('protocol' in v) ? { ...v, protocol: 'oidc' } : v),
  z.discriminatedUnion('protocol', [oidcProviderSchema, samlProviderSchema]),
);

export type SsoProvider = z.infer<typeof oidcProviderSchema>;
export type SamlProvider = z.infer<typeof samlProviderSchema>;
type AnyProvider = SsoProvider | SamlProvider;

const memberSchema = z.object({ userId: z.string(), identityId: z.string() });
const errorSchema = z.object({ errorCode: z.string(), message: z.string() });

/** Why the user service would not give us a member. */
export class MemberRefused extends Error {
  readonly errorCode: string;
  constructor(errorCode: string, message: string) {
    super(message);
    this.errorCode = errorCode;
  }
}

/** Whether a domain's organisation enforces single sign-on, and who is exempt (its break-glass admin). */
const domainPolicySchema = z.object({
  enforced: z.boolean(),
  exemptEmails: z.array(z.string()),
});

type DomainPolicy = z.infer<typeof domainPolicySchema>;

/** Whether the person an identity belongs to must sign in through their organisation's provider. */
const identityPolicySchema = z.object({ enforced: z.boolean() });

export interface ProviderDirectory {
  /** The provider's configuration (OIDC or SAML), or undefined when no organisation has this provider id. */
  get(provider: string): Promise<AnyProvider | undefined>;
  /** The user-service member for a person the provider vouched for (created just in time). */
  member(
    provider: string,
    person: { email: string; firstName?: string; lastName?: string; groups?: string[] },
  ): Promise<{ userId: string; identityId: string }>;
  /** The SSO policy of an address's domain (enforced or not), whether or not the address has an account. */
  domainPolicy(domain: string): Promise<DomainPolicy>;
  /**
   * Whether the person an identity belongs to must sign in through their organisation's provider
   * (their organisation enforces SSO and they are not its break-glass admin): asked fresh each time.
   */
  identityPolicy(identityId: string): Promise<{ enforced: boolean }>;
}

const CACHE_MS = 30_000;

export interface ProviderDirectoryOptions {
  usersAdminUrl: string;
  /** Sent as a bearer token: the user service's admin API requires it once `USERS_ADMIN_KEY` is set. */
  usersAdminKey?: string | undefined;
  timeoutMs?: number;
  /** Time source of the short cache (the service's clock, so tests can move past it). */
  clock?: Clock;
}

export function createProviderDirectory(options: ProviderDirectoryOptions): ProviderDirectory {
  const base = options.usersAdminUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = () => (options.clock ? options.clock.now().getTime() : Date.now());
  const auth: Record<string, string> = options.usersAdminKey
    ? { authorization: `Bearer ${options.usersAdminKey}` }
    : {};
  const cache = new Map<string, { value: AnyProvider | undefined; until: number }>();
  const policies = new Map<string, { value: DomainPolicy; until: number }>();
  const idOk = (id: string) => /^[a-z0-9][a-z0-9-]{0,62}$/.test(id);
  /** A read: sent once more when its connection fails before an answer (a rolling restart). */
  const read = (url: string) => {
    const signal = AbortSignal.timeout(timeoutMs);
    return fetchOnceMore(() => fetch(url, { headers: { ...auth, ...requestIdHeaders() }, signal }), signal);
  };

  return {
    async get(provider) {
      if (!idOk(provider)) return undefined;
      const hit = cache.get(provider);
      if (hit && hit.until > now()) return hit.value;
      const res = await read(`${base}/admin/sso/providers/${provider}`);
      let value: AnyProvider | undefined;
      if (res.status === 404) value = undefined;
      else if (res.ok) value = anyProviderSchema.parse(await res.json());
      else throw new Error(`user service answered ${res.status} for an SSO provider`);
      cache.set(provider, { value, until: now() + CACHE_MS });
      return value;
    },
    async member(provider, person) {
      if (!idOk(provider))
        throw new MemberRefused('SSO_NOT_CONFIGURED', catalogue.t('en', 'memberInvalidProvider'));
      const res = await fetch(`${base}/admin/sso/providers/${provider}/members`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...requestIdHeaders() },
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
    async domainPolicy(domain) {
      const key = domain.toLowerCase();
      const hit = policies.get(key);
      if (hit && hit.until > now()) return hit.value;
      let value: DomainPolicy;
      try {
        const res = await read(`${base}/admin/sso/domains/${encodeURIComponent(key)}`);
        if (!res.ok) throw new Error(`user service answered ${res.status} for a domain's SSO policy`);
        value = domainPolicySchema.parse(await res.json());
      } catch (error) {
        // The last answer stands while the user service can not be asked.
        if (hit) return hit.value;
        throw error;
      }
      if (policies.size > 10_000) policies.clear();
      policies.set(key, { value, until: now() + CACHE_MS });
      return value;
    },
    async identityPolicy(identityId) {
      const res = await read(`${base}/admin/sso/identities/${encodeURIComponent(identityId)}`);
      if (!res.ok) throw new Error(`user service answered ${res.status} for an identity's SSO policy`);
      return identityPolicySchema.parse(await res.json());
    },
  };
}
