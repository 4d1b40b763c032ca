// Wire types of the console's Single sign-on section (`/console/organisations/{id}/sso…`), shared by
// the user service that answers and the admin screen that calls it. No type carries the client
// secret back: it is written once.

/** The organisation's OpenID Connect provider as the console shows it. */
export interface ConsoleOidcProvider {
  protocol: 'oidc';
  provider: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  jit: boolean;
  enforce: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A signing certificate of a SAML IdP: public facts only. */
export interface SamlCertificateFacts {
  /** SHA-256, colon-separated hex. */
  fingerprint: string;
  subject: string;
  notBefore: string;
  notAfter: string;
}

/** The organisation's SAML 2.0 identity provider as the console shows it (issue 26). */
export interface ConsoleSamlProvider {
  protocol: 'saml';
  provider: string;
  idpEntityId: string;
  ssoUrl: string;
  /** Null when the metadata was pasted. */
  metadataUrl: string | null;
  certificates: SamlCertificateFacts[];
  /** When the stored metadata was fetched or pasted. */
  fetchedAt: string;
  /** The last daily refresh's failure (a reason word), null when it worked. */
  refreshError: string | null;
  jit: boolean;
  enforce: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ConsoleSsoProvider = ConsoleOidcProvider | ConsoleSamlProvider;

/** Our SAML service provider, for the organisation's IT admin to register at their IdP. */
export interface SamlServiceProvider {
  entityId: string;
  /** Our SP metadata (entity id, ACS, certificates), to download or give the IdP as a URL. */
  metadataUrl: string;
  acsUrl: string;
}

/**
 * `GET …/sso`: the provider (null before one is set), the redirect URIs to register at an OIDC
 * provider, and our SAML service provider's URLs.
 */
export interface ConsoleSso {
  provider: ConsoleSsoProvider | null;
  redirectUris: { signIn: string; testSignIn: string };
  serviceProvider: SamlServiceProvider;
}

/** `PUT …/sso` for OpenID Connect. Without `clientSecret` the stored secret stays. */
export interface ConsoleOidcInput {
  protocol?: 'oidc';
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes: string[];
  jit: boolean;
  enforce: boolean;
}

/** `PUT …/sso` for SAML: exactly one of the metadata URL (refreshed daily) and the metadata XML. */
export interface ConsoleSamlInput {
  protocol: 'saml';
  metadataUrl?: string;
  metadataXml?: string;
  jit: boolean;
  enforce: boolean;
}

export type ConsoleSsoInput = ConsoleOidcInput | ConsoleSamlInput;

/** `POST …/sso/test-connection` for SAML: metadata to check before saving (else the stored one). */
export interface SamlConnectionInput {
  protocol: 'saml';
  metadataUrl?: string;
  metadataXml?: string;
}

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

export interface SsoConnectionCheck {
  check: SsoConnectionCheckId;
  ok: boolean;
  /** Why it failed (`timeout`, `not_https`, `mismatch`, `missing`, `skipped`…); null when it passed. */
  reason: string | null;
  /** What was found: a URL, an issuer, a key count, algorithms, scopes. */
  value: string | null;
}

/** `POST …/sso/test-connection`. */
export interface SsoConnectionReport {
  ok: boolean;
  checks: SsoConnectionCheck[];
}

/** `POST …/sso/test-sign-in`: where the popup goes, and the state its callback must bring back. */
export interface SsoTestSignInStarted {
  authorizationUrl: string;
  state: string;
  redirectUri: string;
  expiresAt: string;
}

/** `POST …/sso/test-sign-in/complete`: what the provider said about the person. */
export interface SsoTestSignInResult {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
  mapped: {
    email: string | null;
    emailVerified: boolean | null;
    firstName: string | null;
    lastName: string | null;
  };
  domainMatches: boolean;
}
