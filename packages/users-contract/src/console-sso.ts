// Wire types of the console's Single sign-on section (`/console/organisations/{id}/sso…`), shared by
// the user service that answers and the admin screen that calls it. No type carries the client
// secret back: it is written once.

/** The organisation's provider as the console shows it. */
export interface ConsoleSsoProvider {
  provider: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  jit: boolean;
  enforce: boolean;
  createdAt: string;
  updatedAt: string;
}

/** `GET …/sso`: the provider (null before one is set) and the redirect URIs to register at it. */
export interface ConsoleSso {
  provider: ConsoleSsoProvider | null;
  redirectUris: { signIn: string; testSignIn: string };
}

/** `PUT …/sso`. Without `clientSecret` the stored secret stays. */
export interface ConsoleSsoInput {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes: string[];
  jit: boolean;
  enforce: boolean;
}

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

export type SsoConnectionCheckId = (typeof SSO_CONNECTION_CHECKS)[number];

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
