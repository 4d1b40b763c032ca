import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';
import {
  oidcClientIdSchema,
  oidcIssuerSchema,
  oidcScopesSchema,
  samlCertificateFactsSchema,
  samlMetadataUrlSchema,
  samlMetadataXmlSchema,
  samlServiceProviderSchema,
} from '@acme/users-contract/console-sso';

/** A provider id as it appears in the callback URL `/self-service/methods/oidc/callback/{provider}`. */
export const providerIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and dashes'));

/**
 * Which names of a provider's sign-in answer carry which of our traits: each a non-blank name of at
 * most `max` characters matching `pattern`, defaulting to the usual one (`defaults`).
 */
function traitNames<K extends string>(
  defaults: Record<K, string>,
  name: { max: number; pattern: RegExp; message: string },
) {
  const nameSchema = z.string().trim().min(1).max(name.max).regex(name.pattern, name.message);
  const shape = Object.fromEntries(
    Object.entries<string>(defaults).map(([trait, usual]) => [trait, nameSchema.default(usual)]),
  ) as Record<K, z.ZodDefault<z.ZodString>>;
  return z.object(shape).strict();
}

/** The ID token (or userinfo) claims read when a provider names none. Okta, Entra and Google agree on these. */
export const DEFAULT_CLAIM_MAPPING = {
  email: 'email',
  emailVerified: 'email_verified',
  firstName: 'given_name',
  lastName: 'family_name',
};

const claimMappingSchema = traitNames(DEFAULT_CLAIM_MAPPING, {
  max: 100,
  pattern: /^[A-Za-z0-9_:./-]+$/,
  message: 'must be a claim name',
});

export type ClaimMapping = z.output<typeof claimMappingSchema>;

const setOidcProviderSchema = z
  .object({
    /** Left out: OIDC (what every provider was before SAML). */
    protocol: z.literal('oidc').optional(),
    /** Defaults to the organisation's first domain label (globex.test: `globex`). */
    provider: providerIdSchema.optional(),
    issuer: oidcIssuerSchema,
    clientId: oidcClientIdSchema,
    clientSecret: z.string().min(1).max(2000),
    scopes: oidcScopesSchema,
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

/**
 * The SAML attributes (their `Name`) read when a provider names none; `email: "nameid"` takes the
 * address from the assertion's NameID.
 */
export const DEFAULT_SAML_ATTRIBUTES = {
  email: 'email',
  firstName: 'firstName',
  lastName: 'lastName',
  groups: 'groups',
};

const samlAttributesSchema = traitNames(DEFAULT_SAML_ATTRIBUTES, {
  max: 256,
  pattern: /^[\x21-\x7E]+$/,
  message: 'must be a SAML attribute name',
});

const setSamlProviderSchema = z
  .object({
    protocol: z.literal('saml'),
    provider: providerIdSchema.optional(),
    /** Exactly one of the two: a URL refreshed daily, or the XML itself. */
    metadataUrl: samlMetadataUrlSchema.optional(),
    metadataXml: samlMetadataXmlSchema.optional(),
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
/** The IdP metadata's facts and where it comes from (the XML itself stays inside). */
const samlFactsSchema = z.object({
  idpEntityId: z.string(),
  ssoUrl: z.string(),
  certificates: z.array(samlCertificateFactsSchema),
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
  serviceProvider: samlServiceProviderSchema,
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
