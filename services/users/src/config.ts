import { serviceSettings, type CommonSettings } from '@acme/service-kit/service-config';
import { z } from 'zod';
import { privilegedSessionEnvSchema } from '@acme/service-kit/privileged-session';
import { migrateAtStartSchema } from '@acme/service-kit/migrations';
import {
  ConfigError,
  appOriginsSchema,
  bindHostSchema,
  logLevelSchema,
  microsoftTokenEnvSchema,
  portSchema,
  processEnvSchema,
  securityEventsEnvSchema,
  spentRecordsEnvSchema,
  retentionSchema,
  optionalSecretListSchema,
  trustProxySchema,
  upstreamTimeoutSchema,
} from '@acme/service-kit/config';
import { mailWorkerEnvSchema } from '@acme/mail';
import type { TrustProxy } from '@acme/service-kit/proxy-trust';
import { localUrl, systemShape, USUAL_PORTS } from '@acme/system-shape';
import {
  adminAccessFromEnv,
  adminListenerEnvShape,
  adminKeySchema,
  callerKey,
  hostListSchema,
  type AdminAccess,
} from '@acme/service-kit/admin-access';

/** The system as `npm start` shapes it: where the defaults below point. */
const LOCAL = systemShape();
const L = LOCAL.listeners;
/** The source-code host's stand-in (GitHub-like), under the stand-ins' listener. */
const LOCAL_GIT = `${L.standIns}/github`;

/** A document version label such as `2026-01`. */
const versionSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be a version label such as 2026-01');

const configSchema = z.object({
  USERS_PUBLIC_PORT: portSchema(USUAL_PORTS.usersPublic).describe('Port of the public API.'),
  USERS_ADMIN_PORT: portSchema(USUAL_PORTS.usersAdmin).describe('Port of the admin API.'),
  USERS_PUBLIC_HOST: bindHostSchema.describe('Interface the public API binds (`0.0.0.0` in a container).'),
  ...adminListenerEnvShape('USERS'),
  IDENTITY_ADMIN_URL: z.url().default(L.identityAdmin).describe("The identity service's admin API."),
  IDENTITY_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the identity service's admin API, when it requires one.")
    .meta({ secret: true }),
  OAUTH2_ADMIN_URL: z.url().default(L.oauth2Admin).describe("The authorization server's admin API."),
  OAUTH2_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the authorization server's admin API, when it requires one.")
    .meta({ secret: true }),
  APP_ORIGINS: appOriginsSchema,
  MFA_GRACE_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(365)
    .default(14)
    .describe('Days a member may sign in without a second factor where the organisation requires one.'),
  ...privilegedSessionEnvSchema.shape,
  LOGIN_CONFIG_RATE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe('Login-configuration look-ups per client address per window.'),
  INVITATION_STATUS_RATE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe('Invitation status look-ups per client address per window.'),
  INVITATION_STATUS_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe('The window of INVITATION_STATUS_RATE_LIMIT (seconds).'),
  IDENTITY_PUBLIC_URL: z
    .url()
    .default(L.identityPublic)
    .describe("The identity service's public API (`/sessions/whoami` with the caller's cookie)."),
  APP_BASE_URL: z
    .url()
    .default(LOCAL.apps.platform)
    .describe('Origin of the application that invitation links open (`<APP_BASE_URL>/account/onboarding`).'),
  APP_NAME: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .default('Platform')
    .describe('Product name in invitation mails.'),
  INVITATION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(72)
    .describe('Hours an invitation link stays valid.'),
  TERMS_VERSION: versionSchema.default('2026-01').describe('Version of the terms members accept.'),
  PRIVACY_VERSION: versionSchema.default('2026-01').describe('Version of the privacy notice members accept.'),
  TERMS_URL: z.url().optional().describe('The terms (default `<APP_BASE_URL>/account/terms`).'),
  PRIVACY_URL: z.url().optional().describe('The privacy notice (default `<APP_BASE_URL>/account/privacy`).'),
  GIT_OAUTH_AUTHORIZE_URL: z
    .url()
    .default(`${LOCAL_GIT}/login/oauth/authorize`)
    .describe("The source-code host's OAuth authorize endpoint."),
  GIT_OAUTH_TOKEN_URL: z
    .url()
    .default(`${LOCAL_GIT}/login/oauth/access_token`)
    .describe("The source-code host's OAuth token endpoint."),
  GIT_API_URL: z.url().default(`${LOCAL_GIT}/api`).describe("The source-code host's API."),
  GIT_CLIENT_ID: z.string().min(1).default('dev-client').describe('Our OAuth app at the source-code host.'),
  GIT_CLIENT_SECRET: z
    .string()
    .min(1)
    .default('dev-secret')
    .describe('Client secret of that OAuth app.')
    .meta({ secret: true }),
  GIT_OAUTH_SCOPE: z.string().default('read:user').describe('Scope asked of the source-code host.'),
  LOGIN_CONFIG_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe('The window of LOGIN_CONFIG_RATE_LIMIT (seconds).'),
  ...microsoftTokenEnvSchema.shape,
  M365_CLIENT_SECRET: z
    .string()
    .min(1)
    .default('magic-dev-client-secret')
    .describe("The app registration's client secret (marketplace API, Graph).")
    .meta({ secret: true }),
  M365_PUBLISHER_TENANT_ID: z
    .uuid()
    .default('5f1e2d3c-4b5a-4968-8776-a5b4c3d2e133')
    .describe('Tenant of our app registration (client credentials for the marketplace API).'),
  M365_OAUTH2_CLIENT_ID: z
    .string()
    .min(1)
    .default('magic')
    .describe('OAuth2 client our access tokens for Microsoft 365 sign-ins name.'),
  M365_PRODUCTS: z
    .string()
    .default('MAGIC')
    .describe('Products of an organisation a marketplace activation creates, comma-separated.'),
  M365_OFFER_URL: z
    .url()
    .default(`${L.marketplace}/`)
    .describe("The offer's subscription set-up page, shown where a subscription is missing."),
  GRAPH_URL: z.url().default(L.graph).describe('Microsoft Graph.'),
  MARKETPLACE_API_URL: z.url().default(L.marketplace).describe('The Microsoft marketplace API.'),
  AGENT_PUBLIC_URL: z.url().default(L.agent).describe("The agent service's API."),
  SSO_SECRET_KEY: optionalSecretListSchema({
    description:
      "Keys of organisations' SSO client secrets at rest (AES-256-GCM; comma-separated, at least 32 characters each): the first encrypts, every one decrypts. Required in production",
    min: 32,
  }),
  UPSTREAM_TIMEOUT_MS: upstreamTimeoutSchema,
  ...securityEventsEnvSchema.shape,
  ...spentRecordsEnvSchema.shape,
  WEBHOOK_DELIVERIES_RETENTION_DAYS: retentionSchema(
    30,
    3650,
    "Days a finished webhook delivery (delivered or abandoned) stays in the endpoint's delivery list before the retention job deletes it.",
  ),
  CONSOLE_RATE_LIMIT_PER_TOKEN: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe('Console (`/console/*`) requests per access token per window.'),
  CONSOLE_RATE_LIMIT_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe('Console requests per client address per window.'),
  CONSOLE_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(60)
    .describe('The window of both console limits (seconds).'),
  TRUSTED_NETWORKS_MAX_RANGES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe("The most CIDR ranges an organisation's trusted networks may hold."),
  CONSOLE_SSO_HTTP_HOSTS: hostListSchema.describe(
    "Hosts the console's SSO checks may reach over plain http (e.g. `localhost` in development); everything else: https.",
  ),
  CONSOLE_SSO_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .describe("Development only: let the console's SSO checks reach loopback and private addresses."),
  CONSOLE_SSO_FETCH_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(30_000)
    .default(5000)
    .describe("Time-out of each of the console's SSO checks (ms)."),
  CONSOLE_SSO_TEST_REDIRECT_URI: z
    .url()
    .default(`${LOCAL.apps.admin}/admin/sso/test-callback`)
    .describe("The admin application's Test sign-in callback, registered at the identity provider."),
  USERS_PUBLIC_URL: z
    .url()
    .optional()
    .describe(
      'Where external directories reach the public API; the console shows `<USERS_PUBLIC_URL>/scim/v2` (default: localhost on USERS_PUBLIC_PORT).',
    ),
  SCIM_RATE_LIMIT_PER_TOKEN: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe('SCIM requests per token per window (429 with Retry-After beyond).'),
  SCIM_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(60)
    .describe('The window of SCIM_RATE_LIMIT_PER_TOKEN (seconds).'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      'Let webhooks reach loopback, private and link-local addresses (`npm start` sets true for local receivers; leave false in production).',
    ),
  WEBHOOK_HTTP_HOSTS: hostListSchema.describe(
    'Hosts webhooks may reach over plain http (e.g. `localhost` in development); every other endpoint URL must be https.',
  ),
  WEBHOOK_MAX_ENDPOINTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe('The most webhook endpoints an organisation may have.'),
  WEBHOOK_POLL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(60_000)
    .default(1000)
    .describe('How often the webhook worker looks for events to relay and deliveries that are due (ms).'),
  TRUST_PROXY: trustProxySchema,
  LOG_LEVEL: logLevelSchema,
  USERS_MIGRATE_AT_START: migrateAtStartSchema,
});

const OLD_PRIVILEGED_MINUTES = 'PRIVILEGED_SESSION_MAX_AGE_MINUTES';

/**
 * The old name counted minutes (fractions allowed); the new one is a duration. An old value in use
 * is read as that many minutes, so it keeps meaning what it meant; a malformed one refuses the start.
 */
function privilegedMinutesAsDuration(
  given: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const old = given[OLD_PRIVILEGED_MINUTES];
  if (old === undefined || old === '' || (given.PRIVILEGED_SESSION_MAX_AGE ?? '') !== '') return given;
  const minutes = Number(old);
  if (!Number.isFinite(minutes) || minutes < 0.05 || minutes > 24 * 60) {
    throw new ConfigError(
      `Invalid user service configuration: ${OLD_PRIVILEGED_MINUTES} must be a number of minutes from 0.05 to 1440 (better: PRIVILEGED_SESSION_MAX_AGE, a duration such as 1h).`,
    );
  }
  return { ...given, [OLD_PRIVILEGED_MINUTES]: String(Math.round(minutes * 60_000)) };
}

/** Every setting of the user service's process (for the generated reference), and how they are read. */
export const settings = serviceSettings({
  part: 'users',
  title: 'User service',
  prefix: 'USERS',
  managementPort: USUAL_PORTS.usersManagement,
  schema: configSchema,
  // The names these settings had before they were made one per setting across services.
  renames: {
    USERS_PUBLIC_HOST: ['USERS_HOST'],
    AGENT_PUBLIC_URL: ['AGENT_URL'],
    PRIVILEGED_SESSION_MAX_AGE: [OLD_PRIVILEGED_MINUTES],
  },
  alongside: [mailWorkerEnvSchema],
  process: [processEnvSchema],
});

export interface Config extends CommonSettings {
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
  /** How long ended records stay before the retention job deletes them (console/retention.ts). */
  retention: { spentMs: number; finishedDeliveriesMs: number };
  console: { perToken: number; perIp: number; windowSeconds: number; maxTrustedRanges: number };
  /** The console's outbound SSO checks (docs/security.md, "SSO set-up in the console"). */
  consoleSso: { httpHosts: string[]; allowPrivate: boolean; timeoutMs: number; testRedirectUri: string };
  /** Webhooks (issue 35): who they may reach, how many per organisation, the worker's poll. */
  webhooks: { allowPrivate: boolean; httpHosts: string[]; maxEndpoints: number; pollMs: number };
  /** SCIM 2.0 (issue 26): the base URL the console shows, the per-token rate limit. */
  scim: { baseUrl: string; perToken: number; windowSeconds: number };
  trustProxy: TrustProxy;
  /** Apply pending migrations at start (`USERS_MIGRATE_AT_START`, default true); false: refuse to start while any is pending. */
  migrateAtStart: boolean;
  logLevel: string;
}

/** Parses the service configuration once, at start-up. Defaults are the development defaults. */
export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = settings.readEnv(privilegedMinutesAsDuration(given));
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid user service configuration: ${z.prettifyError(parsed.error)}`);
  }
  const c = parsed.data;
  return {
    publicPort: c.USERS_PUBLIC_PORT,
    adminPort: c.USERS_ADMIN_PORT,
    host: c.USERS_PUBLIC_HOST,
    admin: adminAccessFromEnv('USERS', c),
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
    privilegedSessionMaxAgeMs: c.PRIVILEGED_SESSION_MAX_AGE,
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
    agentUrl: stripSlash(c.AGENT_PUBLIC_URL),
    upstreamTimeoutMs: c.UPSTREAM_TIMEOUT_MS,
    ssoSecretKeys: c.SSO_SECRET_KEY ?? developmentSsoKey(env),
    securityEvents: {
      retentionDays: c.SECURITY_EVENTS_RETENTION_DAYS,
      cleanupBatch: c.SECURITY_EVENTS_CLEANUP_BATCH,
    },
    retention: {
      spentMs: c.SPENT_RECORDS_RETENTION_HOURS * 3_600_000,
      finishedDeliveriesMs: c.WEBHOOK_DELIVERIES_RETENTION_DAYS * 86_400_000,
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
    webhooks: {
      allowPrivate: c.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
      httpHosts: c.WEBHOOK_HTTP_HOSTS,
      maxEndpoints: c.WEBHOOK_MAX_ENDPOINTS,
      pollMs: c.WEBHOOK_POLL_MS,
    },
    scim: {
      baseUrl: `${stripSlash(c.USERS_PUBLIC_URL ?? localUrl(c.USERS_PUBLIC_PORT))}/scim/v2`,
      perToken: c.SCIM_RATE_LIMIT_PER_TOKEN,
      windowSeconds: c.SCIM_RATE_WINDOW_SECONDS,
    },
    trustProxy: c.TRUST_PROXY,
    migrateAtStart: c.USERS_MIGRATE_AT_START,
    ...settings.common(env),
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
