// Wire shapes of the console's Single sign-on section (`/console/organisations/{id}/sso…`), as zod
// schemas: the user service validates requests and answers with them and generates its OpenAPI
// document from them; the admin screen uses the types inferred from them. No answer carries the
// client secret back: it is written once.

import { z } from 'zod';

/** Largest SAML IdP metadata taken, pasted or fetched (the parser refuses more, in bytes). */
export const SAML_METADATA_MAX_BYTES = 1024 * 1024;

/** An OpenID Connect issuer: an http(s) URL without query, fragment or credentials. */
export const oidcIssuerSchema = z
  .url()
  .max(500)
  .refine((v) => {
    const u = new URL(v);
    const web = u.protocol === 'https:' || u.protocol === 'http:';
    return web && !u.search && !u.hash && !u.username && !u.password;
  }, 'must be an http(s) issuer URL without query, fragment or credentials');

export const oidcClientIdSchema = z.string().trim().min(1).max(500);

const scopeSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token');

/** The scopes asked for: at most 20, `openid` among them, each once. */
export const oidcScopesSchema = z
  .array(scopeSchema)
  .max(20)
  .default(['openid', 'email', 'profile'])
  .transform((s) => [...new Set(s)])
  .refine((s) => s.includes('openid'), 'must include openid');

/** Where IdP metadata may be fetched from: an http(s) URL without credentials or fragment. */
export const samlMetadataUrlSchema = z
  .url()
  .max(2000)
  .refine((v) => {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.hash;
  }, 'must be an https URL without credentials or fragment');

/** Pasted metadata: the parser enforces the 1 MiB limit in bytes; this bounds the string first. */
export const samlMetadataXmlSchema = z.string().min(1).max(SAML_METADATA_MAX_BYTES);

/** A signing certificate of a SAML IdP: public facts only (fingerprint: SHA-256, colon-separated hex). */
export const samlCertificateFactsSchema = z.object({
  fingerprint: z.string(),
  subject: z.string(),
  notBefore: z.iso.datetime(),
  notAfter: z.iso.datetime(),
});
export type SamlCertificateFacts = z.infer<typeof samlCertificateFactsSchema>;

/** Our SAML service provider, for the organisation's IT admin to register at their IdP. */
export const samlServiceProviderSchema = z.object({
  entityId: z.string(),
  /** Our SP metadata (entity id, ACS, certificates), to download or give the IdP as a URL. */
  metadataUrl: z.string(),
  acsUrl: z.string(),
});
export type SamlServiceProvider = z.infer<typeof samlServiceProviderSchema>;

const providerTimes = {
  jit: z.boolean(),
  enforce: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};

/** The organisation's OpenID Connect provider as the console shows it. */
export const consoleOidcProviderSchema = z.object({
  protocol: z.literal('oidc'),
  provider: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  scopes: z.array(z.string()),
  ...providerTimes,
});
export type ConsoleOidcProvider = z.infer<typeof consoleOidcProviderSchema>;

/** The organisation's SAML 2.0 identity provider as the console shows it (issue 26). */
export const consoleSamlProviderSchema = z.object({
  protocol: z.literal('saml'),
  provider: z.string(),
  idpEntityId: z.string(),
  ssoUrl: z.string(),
  /** Null when the metadata was pasted. */
  metadataUrl: z.string().nullable(),
  certificates: z.array(samlCertificateFactsSchema),
  /** When the stored metadata was fetched or pasted. */
  fetchedAt: z.iso.datetime(),
  /** The last daily refresh's failure (a reason word), null when it worked. */
  refreshError: z.string().nullable(),
  ...providerTimes,
});
export type ConsoleSamlProvider = z.infer<typeof consoleSamlProviderSchema>;

export const consoleSsoProviderSchema = z.discriminatedUnion('protocol', [
  consoleOidcProviderSchema,
  consoleSamlProviderSchema,
]);
export type ConsoleSsoProvider = z.infer<typeof consoleSsoProviderSchema>;

/**
 * `GET …/sso` (and `PUT`'s answer): the provider (null before one is set), the redirect URIs to
 * register at an OIDC provider, and our SAML service provider's URLs.
 */
export const consoleSsoSchema = z.object({
  provider: consoleSsoProviderSchema.nullable(),
  /** The sign-in callback (identity service) and Test sign-in's (admin application). */
  redirectUris: z.object({ signIn: z.string(), testSignIn: z.string() }),
  serviceProvider: samlServiceProviderSchema,
});
export type ConsoleSso = z.infer<typeof consoleSsoSchema>;

const oneMetadataSource = {
  message: 'give exactly one of metadataUrl and metadataXml',
  path: ['metadataUrl'],
};

/**
 * `PUT …/sso` for OpenID Connect: no provider id (it follows the domain), claim mapping or userinfo.
 * Without `clientSecret` the stored secret stays.
 */
export const consoleOidcInputSchema = z
  .object({
    protocol: z.literal('oidc').optional(),
    issuer: oidcIssuerSchema,
    clientId: oidcClientIdSchema,
    clientSecret: z.string().min(1).max(2000).optional(),
    scopes: oidcScopesSchema,
    jit: z.boolean(),
    enforce: z.boolean(),
  })
  .strict();
export type ConsoleOidcInput = z.input<typeof consoleOidcInputSchema>;

/** `PUT …/sso` for SAML: exactly one of the metadata URL (refreshed daily) and the metadata XML. */
export const consoleSamlInputSchema = z
  .object({
    protocol: z.literal('saml'),
    metadataUrl: samlMetadataUrlSchema.optional(),
    metadataXml: samlMetadataXmlSchema.optional(),
    jit: z.boolean(),
    enforce: z.boolean(),
  })
  .strict()
  .refine((v) => (v.metadataUrl === undefined) !== (v.metadataXml === undefined), oneMetadataSource);
export type ConsoleSamlInput = z.input<typeof consoleSamlInputSchema>;

export const consoleSsoInputSchema = z.discriminatedUnion('protocol', [
  consoleOidcInputSchema,
  consoleSamlInputSchema,
]);
export type ConsoleSsoInput = z.input<typeof consoleSsoInputSchema>;

/** `POST …/sso/test-connection` for SAML: metadata to check before saving (else the stored one). */
const samlConnectionInputSchema = z
  .object({
    protocol: z.literal('saml'),
    metadataUrl: samlMetadataUrlSchema.optional(),
    metadataXml: samlMetadataXmlSchema.optional(),
  })
  .strict()
  .refine((v) => v.metadataUrl === undefined || v.metadataXml === undefined, oneMetadataSource);
export type SamlConnectionInput = z.input<typeof samlConnectionInputSchema>;

/** `POST …/sso/test-connection`: the stored provider, another issuer (OIDC), or SAML metadata. */
export const ssoConnectionInputSchema = z.discriminatedUnion('protocol', [
  z.object({ protocol: z.literal('oidc').optional(), issuer: oidcIssuerSchema.optional() }).strict(),
  samlConnectionInputSchema,
]);

/** Test connection's checks of SAML metadata, in the order they run. */
export const SAML_CONNECTION_CHECKS = [
  'metadata',
  'entity_id',
  'signing_certificate',
  'certificate_expiry',
  'sso_url',
] as const;

/** The checks of Test connection, in the order they run. */
export const SSO_CONNECTION_CHECKS = [
  'discovery',
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks',
  'algorithms',
  'scopes',
] as const;

export type SsoConnectionCheckId =
  (typeof SSO_CONNECTION_CHECKS)[number] | (typeof SAML_CONNECTION_CHECKS)[number];

/** `POST …/sso/test-connection`'s answer: each check, in order. */
export const ssoConnectionReportSchema = z.object({
  ok: z.boolean(),
  checks: z.array(
    z.object({
      check: z.enum([...SSO_CONNECTION_CHECKS, ...SAML_CONNECTION_CHECKS]),
      ok: z.boolean(),
      /** Why it failed (`timeout`, `not_https`, `mismatch`, `missing`, `skipped`…); null when it passed. */
      reason: z.string().nullable(),
      /** What was found: a URL, an issuer, a key count, algorithms, scopes. */
      value: z.string().nullable(),
    }),
  ),
});
export type SsoConnectionReport = z.infer<typeof ssoConnectionReportSchema>;
export type SsoConnectionCheck = SsoConnectionReport['checks'][number];

/** `POST …/sso/test-sign-in`: where the popup goes, and the state its callback must bring back. */
export const ssoTestSignInStartedSchema = z.object({
  authorizationUrl: z.string(),
  state: z.string(),
  redirectUri: z.string(),
  expiresAt: z.iso.datetime(),
});
export type SsoTestSignInStarted = z.infer<typeof ssoTestSignInStartedSchema>;

/** `POST …/sso/test-sign-in/complete`: the state, and the provider's code or error. */
export const ssoTestSignInCompletionSchema = z
  .object({
    state: z.string().min(1).max(200),
    code: z.string().min(1).max(4096).optional(),
    error: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be an OAuth 2.0 error code')
      .optional(),
  })
  .strict();

/** `POST …/sso/test-sign-in/complete`'s answer: what the provider said about the person. */
export const ssoTestSignInResultSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  claims: z.record(z.string(), z.unknown()),
  mapped: z.object({
    email: z.string().nullable(),
    emailVerified: z.boolean().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
  }),
  domainMatches: z.boolean(),
});
export type SsoTestSignInResult = z.infer<typeof ssoTestSignInResultSchema>;
