import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';

/** A provider id as it appears in the callback URL `/self-service/methods/oidc/callback/{provider}`. */
export const providerIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and dashes'));

const claimName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_:./-]+$/, 'must be a claim name');

/** Which ID token (or userinfo) claims carry the traits we need. Okta, Entra and Google agree on these. */
const claimMappingSchema = z
  .object({
    email: claimName.default('email'),
    emailVerified: claimName.default('email_verified'),
    firstName: claimName.default('given_name'),
    lastName: claimName.default('family_name'),
  })
  .strict();

export type ClaimMapping = z.output<typeof claimMappingSchema>;

export const DEFAULT_CLAIM_MAPPING: ClaimMapping = {
  email: 'email',
  emailVerified: 'email_verified',
  firstName: 'given_name',
  lastName: 'family_name',
};

const scopeSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token');

export const setSsoProviderSchema = z
  .object({
    /** Defaults to the organisation's first domain label (globex.test: `globex`). */
    provider: providerIdSchema.optional(),
    issuer: z
      .url()
      .max(500)
      .refine((v) => {
        const u = new URL(v);
        const web = u.protocol === 'https:' || u.protocol === 'http:';
        return web && !u.search && !u.hash && !u.username && !u.password;
      }, 'must be an http(s) issuer URL without query, fragment or credentials'),
    clientId: z.string().trim().min(1).max(500),
    clientSecret: z.string().min(1).max(2000),
    scopes: z
      .array(scopeSchema)
      .max(20)
      .default(['openid', 'email', 'profile'])
      .transform((s) => [...new Set(s)])
      .refine((s) => s.includes('openid'), 'must include openid'),
    claimMapping: claimMappingSchema.default(DEFAULT_CLAIM_MAPPING),
    /** Create a user on first sign-in (just-in-time) instead of refusing addresses without one. */
    jit: z.boolean().default(true),
    /** Also read claims from the userinfo endpoint. */
    userinfo: z.boolean().default(false),
    /**
     * Refuse password sign-in and recovery for the organisation's domains (SSO only). Unchanged
     * when left out (off for a new provider).
     */
    enforce: z.boolean().optional(),
  })
  .strict();

/** The break-glass org-admin exempt from `enforce`. */
export const setBreakGlassSchema = z.object({ userId: z.uuid() }).strict();

/** What the identity service gets for a domain (admin network only): the same shape for every domain. */
export const domainPolicySchema = z.object({
  enforced: z.boolean(),
  exemptEmails: z.array(z.string()),
});

export const domainParamsSchema = z.object({
  domain: z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a domain name'),
});

export type SetSsoProviderInput = z.output<typeof setSsoProviderSchema>;

/** What operators see: never the secret. */
export const ssoProviderSchema = z.object({
  provider: z.string(),
  organisationId: z.uuid(),
  issuer: z.string(),
  clientId: z.string(),
  clientSecretSet: z.literal(true),
  scopes: z.array(z.string()),
  claimMapping: claimMappingSchema,
  jit: z.boolean(),
  userinfo: z.boolean(),
  enforce: z.boolean(),
  breakGlassUserId: z.uuid().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export type SsoProvider = z.input<typeof ssoProviderSchema>;

/** What the identity service gets (admin network only): the secret, and the domains the org owns. */
export const ssoProviderConfigSchema = ssoProviderSchema
  .omit({ clientSecretSet: true, createdAt: true, updatedAt: true, enforce: true, breakGlassUserId: true })
  .extend({ clientSecret: z.string(), domains: z.array(z.string()) });

export type SsoProviderConfig = z.input<typeof ssoProviderConfigSchema>;

export const organisationParamsSchema = z.object({ id: z.string() });
export const providerParamsSchema = z.object({ provider: z.string().max(100) });

const nameSchema = z.string().trim().min(1).max(100);

/** A just-in-time member: what the provider said about the person. */
export const ssoMemberSchema = z
  .object({
    email: emailSchema,
    firstName: nameSchema.optional(),
    lastName: nameSchema.optional(),
    /** The directory groups a SAML IdP named (issue 26); not used yet. */
    groups: z.array(z.string().max(256)).max(100).optional(),
  })
  .strict();

export const ssoMemberResultSchema = z.object({ userId: z.uuid(), identityId: z.string() });
