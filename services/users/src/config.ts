import { overloadConfig, type OverloadConfig } from '@acme/service-kit/overload';
import { z } from 'zod';
import { migrateAtStartSchema } from '@acme/service-kit/migrations';
import {
  ConfigError,
  appOriginsSchema,
  logLevelSchema,
  portSchema,
  optionalSecretListSchema,
  settingNames,
  settingsFromFiles,
  trustProxySchema,
} from '@acme/service-kit/config';
import type { TrustProxy } from '@acme/service-kit/proxy-trust';
import {
  adminAccess,
  adminHostSchema,
  adminKeySchema,
  callerKey,
  hostListSchema,
  type AdminAccess,
} from '@acme/service-kit/admin-access';

/** A document version label such as `2026-01`. */
const versionSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be a version label such as 2026-01');

const configSchema = z.object({
  USERS_PUBLIC_PORT: portSchema(4455),
  USERS_ADMIN_PORT: portSchema(4456),
  /** Bind address of the public API only; the admin API has its own. */
  USERS_HOST: z.string().default('127.0.0.1'),
  USERS_ADMIN_HOST: adminHostSchema,
  USERS_ADMIN_KEY: adminKeySchema,
  USERS_ADMIN_ALLOWED_HOSTS: hostListSchema,
  IDENTITY_ADMIN_URL: z.url().default('http://localhost:4434'),
  /** Bearer token for the identity service's admin API, when it requires one. */
  IDENTITY_ADMIN_KEY: adminKeySchema,
  OAUTH2_ADMIN_URL: z.url().default('http://localhost:4445'),
  OAUTH2_ADMIN_KEY: adminKeySchema,
  APP_ORIGINS: appOriginsSchema,
  MFA_GRACE_DAYS: z.coerce.number().int().min(0).max(365).default(14),
  /**
   * Minutes after a sign-in during which it may unlink the source-code host (the identity service's
   * privileged session age). Fractions are allowed (at least 3 s), so a journey can watch it run out.
   */
  PRIVILEGED_SESSION_MAX_AGE_MINUTES: z.coerce
    .number()
    .min(0.05)
    .max(24 * 60)
    .default(60),
  LOGIN_CONFIG_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  INVITATION_STATUS_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  INVITATION_STATUS_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  IDENTITY_PUBLIC_URL: z.url().default('http://localhost:4433'),
  APP_BASE_URL: z.url().default('http://localhost:4000'),
  APP_NAME: z.string().trim().min(1).max(100).default('Platform'),
  INVITATION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(72),
  TERMS_VERSION: versionSchema.default('2026-01'),
  PRIVACY_VERSION: versionSchema.default('2026-01'),
  TERMS_URL: z.url().optional(),
  PRIVACY_URL: z.url().optional(),
  GIT_OAUTH_AUTHORIZE_URL: z.url().default('http://localhost:4500/github/login/oauth/authorize'),
  GIT_OAUTH_TOKEN_URL: z.url().default('http://localhost:4500/github/login/oauth/access_token'),
  GIT_API_URL: z.url().default('http://localhost:4500/github/api'),
  GIT_CLIENT_ID: z.string().min(1).default('dev-client'),
  GIT_CLIENT_SECRET: z
    .string()
    .min(1)
    .default('dev-secret')
    .describe("The source-code host's OAuth client secret (the host holds one value at a time)")
    .meta({ secret: true }),
  GIT_OAUTH_SCOPE: z.string().default('read:user'),
  LOGIN_CONFIG_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  M365_AUTHORITY_URL: z.url().default('http://localhost:4510'),
  M365_CLIENT_ID: z.uuid().default('6f2d4c1a-8b3e-4f5d-9a7c-1e2b3c4d5e6f'),
  M365_CLIENT_SECRET: z
    .string()
    .min(1)
    .default('magic-dev-client-secret')
    .describe("The Microsoft 365 app registration's client secret")
    .meta({ secret: true }),
  M365_APP_ID_URI: z.string().min(1).optional(),
  M365_PUBLISHER_TENANT_ID: z.uuid().default('5f1e2d3c-4b5a-4968-8776-a5b4c3d2e133'),
  M365_OAUTH2_CLIENT_ID: z.string().min(1).default('magic'),
  M365_PRODUCTS: z.string().default('MAGIC'),
  M365_OFFER_URL: z.url().default('http://localhost:4540/'),
  GRAPH_URL: z.url().default('http://localhost:4511'),
  MARKETPLACE_API_URL: z.url().default('http://localhost:4540'),
  AGENT_URL: z.url().default('http://localhost:4466'),
  SSO_SECRET_KEY: optionalSecretListSchema({
    description:
      "Keys of organisations' SSO client secrets at rest (AES-256-GCM; comma-separated, at least 32 characters each): the first encrypts, every one decrypts. Required in production",
    min: 32,
  }),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  /** Security events older than this are deleted by the retention job (issue 24). */
  SECURITY_EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(400),
  /** Events deleted per statement by the retention job, so writers never wait behind one long delete. */
  SECURITY_EVENTS_CLEANUP_BATCH: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** Console (`/console/*`) requests per window, per access token and per client address (issue 24). */
  CONSOLE_RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(1).default(120),
  CONSOLE_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1).default(600),
  CONSOLE_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** The most CIDR ranges an organisation's trusted networks may hold. */
  TRUSTED_NETWORKS_MAX_RANGES: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * The console's SSO checks (Test connection, Test sign-in) and issuers set there: hosts that may
   * be reached over plain http (the development stand-in, e.g. `localhost`). Everything else: https.
   */
  CONSOLE_SSO_HTTP_HOSTS: hostListSchema,
  /** Development only: let those checks reach loopback and private addresses (refused otherwise). */
  CONSOLE_SSO_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  /** Time-out of each of those fetches. */
  CONSOLE_SSO_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
  /** The admin application's Test sign-in callback, registered at the provider next to the identity service's. */
  CONSOLE_SSO_TEST_REDIRECT_URI: z.url().default('http://localhost:4002/admin/sso/test-callback'),
  /**
   * Where an external directory reaches this service's public port (issue 26: the console shows
   * `<USERS_PUBLIC_URL>/scim/v2` as the SCIM base URL). Default: localhost on USERS_PUBLIC_PORT.
   */
  USERS_PUBLIC_URL: z.url().optional(),
  /** SCIM requests per window and per token (429 with Retry-After beyond). */
  SCIM_RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(1).default(600),
  SCIM_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  TRUST_PROXY: trustProxySchema,
  LOG_LEVEL: logLevelSchema,
  USERS_MIGRATE_AT_START: migrateAtStartSchema,
});

export interface Config {
  publicPort: number;
  adminPort: number;
  /** Bind address of the public API. */
  host: string;
  /** Admin listener: bind address, bearer key, accepted Host names. */
  admin: AdminAccess;
  identityAdminUrl: string;
  identityAdminKey: string | undefined;
  oauth2AdminUrl: string;
  oauth2AdminKey: string | undefined;
  appOrigins: string[];
  mfaGraceDays: number;
  loginConfigRateLimit: number;
  loginConfigRateWindowSeconds: number;
  invitationStatusRateLimit: number;
  invitationStatusRateWindowSeconds: number;
  /** Browser-facing identity service, for `/sessions/whoami` with the caller's cookie. */
  identityPublicUrl: string;
  /** Origin of the app that invitation links open (`<appBaseUrl>/account/onboarding`). */
  appBaseUrl: string;
  appName: string;
  invitationTtlHours: number;
  privilegedSessionMaxAgeMs: number;
  terms: { version: string; url: string };
  privacy: { version: string; url: string };
  git: {
    authorizeUrl: string;
    tokenUrl: string;
    apiUrl: string;
    clientId: string;
    clientSecret: string;
    scope: string;
  };
  m365: {
    /** Entra's base (https://login.microsoftonline.com); tenant paths go below it. */
    authorityUrl: string;
    /** Our app registration: the audience of ID tokens and Teams tokens. */
    clientId: string;
    clientSecret: string;
    /** Also accepted as a token audience (Teams SSO tokens of v1 apps). */
    appIdUri?: string;
    /** Tenant of our app registration (client credentials for the marketplace API). */
    publisherTenantId: string;
    /** OAuth2 client our access tokens name (`client_id`). */
    oauth2ClientId: string;
    /** Products of an organisation created by a marketplace activation. */
    products: string[];
    /** The offer's subscription set-up link, sent with UserNotSubscribedException. */
    offerUrl: string;
    graphUrl: string;
    marketplaceUrl: string;
  };
  agentUrl: string;
  upstreamTimeoutMs: number;
  /** Keys of SSO client secrets at rest: the first seals, every one opens. */
  ssoSecretKeys: readonly string[];
  securityEvents: { retentionDays: number; cleanupBatch: number };
  console: { perToken: number; perIp: number; windowSeconds: number; maxTrustedRanges: number };
  /** The console's outbound SSO checks (docs/security.md, "SSO set-up in the console"). */
  consoleSso: { httpHosts: string[]; allowPrivate: boolean; timeoutMs: number; testRedirectUri: string };
  /** SCIM 2.0 (issue 26): the base URL the console shows, the per-token rate limit. */
  scim: { baseUrl: string; perToken: number; windowSeconds: number };
  trustProxy: TrustProxy;
  /** Apply pending migrations at start (`USERS_MIGRATE_AT_START`, default true); false: refuse to start while any is pending. */
  migrateAtStart: boolean;
  /** Load shedding on event-loop lag (OVERLOAD_*; service-kit overload.ts). */
  overload: OverloadConfig;
  logLevel: string;
}

/** Parses the service configuration once, at start-up. Defaults are the development defaults. */
export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = settingsFromFiles(given, settingNames(configSchema));
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid user service configuration: ${z.prettifyError(parsed.error)}`);
  }
  const c = parsed.data;
  return {
    publicPort: c.USERS_PUBLIC_PORT,
    adminPort: c.USERS_ADMIN_PORT,
    host: c.USERS_HOST,
    admin: adminAccess('USERS', {
      host: c.USERS_ADMIN_HOST,
      keys: c.USERS_ADMIN_KEY,
      allowedHosts: c.USERS_ADMIN_ALLOWED_HOSTS,
    }),
    identityAdminUrl: stripSlash(c.IDENTITY_ADMIN_URL),
    identityAdminKey: callerKey(c.IDENTITY_ADMIN_KEY),
    oauth2AdminUrl: stripSlash(c.OAUTH2_ADMIN_URL),
    oauth2AdminKey: callerKey(c.OAUTH2_ADMIN_KEY),
    appOrigins: c.APP_ORIGINS,
    mfaGraceDays: c.MFA_GRACE_DAYS,
    loginConfigRateLimit: c.LOGIN_CONFIG_RATE_LIMIT,
    loginConfigRateWindowSeconds: c.LOGIN_CONFIG_RATE_WINDOW_SECONDS,
    invitationStatusRateLimit: c.INVITATION_STATUS_RATE_LIMIT,
    invitationStatusRateWindowSeconds: c.INVITATION_STATUS_RATE_WINDOW_SECONDS,
    identityPublicUrl: stripSlash(c.IDENTITY_PUBLIC_URL),
    appBaseUrl: new URL(c.APP_BASE_URL).origin,
    appName: c.APP_NAME,
    invitationTtlHours: c.INVITATION_TTL_HOURS,
    privilegedSessionMaxAgeMs: c.PRIVILEGED_SESSION_MAX_AGE_MINUTES * 60_000,
    terms: {
      version: c.TERMS_VERSION,
      url: c.TERMS_URL ?? `${new URL(c.APP_BASE_URL).origin}/account/terms`,
    },
    privacy: {
      version: c.PRIVACY_VERSION,
      url: c.PRIVACY_URL ?? `${new URL(c.APP_BASE_URL).origin}/account/privacy`,
    },
    git: {
      authorizeUrl: c.GIT_OAUTH_AUTHORIZE_URL,
      tokenUrl: c.GIT_OAUTH_TOKEN_URL,
      apiUrl: stripSlash(c.GIT_API_URL),
      clientId: c.GIT_CLIENT_ID,
      clientSecret: c.GIT_CLIENT_SECRET,
      scope: c.GIT_OAUTH_SCOPE,
    },
    m365: {
      authorityUrl: stripSlash(c.M365_AUTHORITY_URL),
      clientId: c.M365_CLIENT_ID.toLowerCase(),
      clientSecret: c.M365_CLIENT_SECRET,
      ...(c.M365_APP_ID_URI ? { appIdUri: c.M365_APP_ID_URI } : {}),
      publisherTenantId: c.M365_PUBLISHER_TENANT_ID.toLowerCase(),
      oauth2ClientId: c.M365_OAUTH2_CLIENT_ID,
      products: c.M365_PRODUCTS.split(',')
        .map((p) => p.trim())
        .filter(Boolean),
      offerUrl: c.M365_OFFER_URL,
      graphUrl: stripSlash(c.GRAPH_URL),
      marketplaceUrl: stripSlash(c.MARKETPLACE_API_URL),
    },
    agentUrl: stripSlash(c.AGENT_URL),
    upstreamTimeoutMs: c.UPSTREAM_TIMEOUT_MS,
    ssoSecretKeys: c.SSO_SECRET_KEY ?? developmentSsoKey(env),
    securityEvents: {
      retentionDays: c.SECURITY_EVENTS_RETENTION_DAYS,
      cleanupBatch: c.SECURITY_EVENTS_CLEANUP_BATCH,
    },
    console: {
      perToken: c.CONSOLE_RATE_LIMIT_PER_TOKEN,
      perIp: c.CONSOLE_RATE_LIMIT_PER_IP,
      windowSeconds: c.CONSOLE_RATE_WINDOW_SECONDS,
      maxTrustedRanges: c.TRUSTED_NETWORKS_MAX_RANGES,
    },
    consoleSso: {
      httpHosts: c.CONSOLE_SSO_HTTP_HOSTS,
      allowPrivate: c.CONSOLE_SSO_ALLOW_PRIVATE === 'true',
      timeoutMs: c.CONSOLE_SSO_FETCH_TIMEOUT_MS,
      testRedirectUri: c.CONSOLE_SSO_TEST_REDIRECT_URI,
    },
    scim: {
      baseUrl: `${stripSlash(c.USERS_PUBLIC_URL ?? `http://localhost:${c.USERS_PUBLIC_PORT}`)}/scim/v2`,
      perToken: c.SCIM_RATE_LIMIT_PER_TOKEN,
      windowSeconds: c.SCIM_RATE_WINDOW_SECONDS,
    },
    trustProxy: c.TRUST_PROXY,
    migrateAtStart: c.USERS_MIGRATE_AT_START,
    overload: overloadConfig(env),
    logLevel: c.LOG_LEVEL,
  };
}

/** Development and tests only: production must set SSO_SECRET_KEY. */
function developmentSsoKey(env: Record<string, string | undefined>): readonly string[] {
  if (env.NODE_ENV === 'production')
    throw new ConfigError('Invalid user service configuration: SSO_SECRET_KEY is required in production');
  return ['development-only-sso-secret-key-not-for-production'];
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
