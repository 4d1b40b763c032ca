import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';
import { SAML_METADATA_MAX_BYTES } from './saml-metadata.ts';

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

export const setOidcProviderSchema = z
  .object({
    /** Left out: OIDC (what every provider was before SAML). */
    protocol: z.literal('oidc').optional(),
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

const attributeName = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7E]+$/, 'must be a SAML attribute name');

/**
 * Which SAML attributes (their `Name`) carry the traits; `email: "nameid"` takes the address from
 * the assertion's NameID.
 */
const samlAttributesSchema = z
  .object({
    email: attributeName.default('email'),
    firstName: attributeName.default('firstName'),
    lastName: attributeName.default('lastName'),
    groups: attributeName.default('groups'),
  })
  .strict();

export type SamlAttributes = z.output<typeof samlAttributesSchema>;

export const DEFAULT_SAML_ATTRIBUTES: SamlAttributes = {
  email: 'email',
  firstName: 'firstName',
  lastName: 'lastName',
  groups: 'groups',
};

/** Where IdP metadata may be fetched from: an http(s) URL without credentials or fragment. */
export const metadataUrlSchema = z
  .url()
  .max(2000)
  .refine((v) => {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.hash;
  }, 'must be an https URL without credentials or fragment');

/** Pasted metadata: the parser enforces the 1 MiB limit in bytes; this bounds the string first. */
export const metadataXmlSchema = z.string().min(1).max(SAML_METADATA_MAX_BYTES);

const setSamlProviderSchema = z
  .object({
    protocol: z.literal('saml'),
    provider: providerIdSchema.optional(),
    /** Exactly one of the two: a URL refreshed daily, or the XML itself. */
    metadataUrl: metadataUrlSchema.optional(),
    metadataXml: metadataXmlSchema.optional(),
    attributes: samlAttributesSchema.default(DEFAULT_SAML_ATTRIBUTES),
    jit: z.boolean().default(true),
    enforce: z.boolean().optional(),
    /** Unsolicited responses (no AuthnRequest of ours): refused unless turned on. */
    allowIdpInitiated: z.boolean().default(false),
  })
  .strict()
  .refine((v) => (v.metadataUrl === undefined) !== (v.metadataXml === undefined), {
    message: 'give exactly one of metadataUrl and metadataXml',
    path: ['metadataUrl'],
  });

/** `PUT /admin/organisations/{id}/sso`: OIDC (no `protocol`, as before) or SAML. */
export const setSsoProviderSchema = z.discriminatedUnion('protocol', [
  setOidcProviderSchema,
  setSamlProviderSchema,
]);

export type SetOidcProviderInput = z.output<typeof setOidcProviderSchema>;
export type SetSamlProviderInput = z.output<typeof setSamlProviderSchema>;

/** The break-glass org-admin exempt from `enforce`. */
export const setBreakGlassSchema = z.object({ userId: z.uuid() }).strict();

/** What the identity service gets for a domain (admin network only): the same shape for every domain. */
export const domainPolicySchema = z.object({
  enforced: z.boolean(),
  exemptEmails: z.array(z.string()),
});

/**
 * What the identity service gets for an identity (admin network only): whether the person must sign
 * in through their organisation's provider (a member of an organisation that enforces SSO, other
 * than its break-glass org-admin). Unknown identities get the same shape.
 */
export const identityPolicySchema = z.object({ enforced: z.boolean() });

export const identityParamsSchema = z.object({ identityId: z.string().max(64) });

export const domainParamsSchema = z.object({
  domain: z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a domain name'),
});

/** What operators see of an OIDC provider: never the secret. */
const oidcProviderViewSchema = z.object({
  protocol: z.literal('oidc'),
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

/** A signing certificate as people see it: fingerprint and validity, never the whole PEM. */
export const certificateFactsSchema = z.object({
  fingerprint: z.string(),
  subject: z.string(),
  notBefore: z.iso.datetime(),
  notAfter: z.iso.datetime(),
});

/** Our side of a SAML provider, for the organisation's IT admin to give their IdP. */
export const serviceProviderSchema = z.object({
  entityId: z.string(),
  metadataUrl: z.string(),
  acsUrl: z.string(),
});

/** The IdP metadata's facts and where it comes from (the XML itself stays inside). */
const samlFactsSchema = z.object({
  idpEntityId: z.string(),
  ssoUrl: z.string(),
  certificates: z.array(certificateFactsSchema),
  metadataUrl: z.string().nullable(),
  fetchedAt: z.iso.datetime(),
  checkedAt: z.iso.datetime().nullable(),
  refreshError: z.string().nullable(),
  attributes: samlAttributesSchema,
  allowIdpInitiated: z.boolean(),
});

const samlProviderViewSchema = z.object({
  protocol: z.literal('saml'),
  provider: z.string(),
  organisationId: z.uuid(),
  saml: samlFactsSchema,
  serviceProvider: serviceProviderSchema,
  jit: z.boolean(),
  enforce: z.boolean(),
  breakGlassUserId: z.uuid().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** What operators see (admin API, CLI). */
export const ssoProviderSchema = z.discriminatedUnion('protocol', [
  oidcProviderViewSchema,
  samlProviderViewSchema,
]);

export type SsoProvider = z.input<typeof ssoProviderSchema>;

/** What the identity service gets (admin network only) for an OIDC provider: the secret, and the domains. */
const oidcProviderConfigSchema = oidcProviderViewSchema
  .omit({ clientSecretSet: true, createdAt: true, updatedAt: true, enforce: true, breakGlassUserId: true })
  .extend({ clientSecret: z.string(), domains: z.array(z.string()) });

/** … and for a SAML provider (the contract with the identity service's SAML strategy, issue 26). */
const samlProviderConfigSchema = z.object({
  protocol: z.literal('saml'),
  provider: z.string(),
  organisationId: z.uuid(),
  jit: z.boolean(),
  domains: z.array(z.string()),
  saml: z.object({
    idpEntityId: z.string(),
    ssoUrl: z.string(),
    certificates: z.array(z.string()).min(1).max(2),
    allowIdpInitiated: z.boolean(),
    attributes: samlAttributesSchema,
  }),
});

export const ssoProviderConfigSchema = z.discriminatedUnion('protocol', [
  oidcProviderConfigSchema,
  samlProviderConfigSchema,
]);

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
    /** The directory groups a SAML IdP named (issue 26): they grant through the group mapping. */
    groups: z.array(z.string().max(256)).max(100).optional(),
  })
  .strict();

export const ssoMemberResultSchema = z.object({ userId: z.uuid(), identityId: z.string() });
