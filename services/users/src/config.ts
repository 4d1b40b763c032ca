import { z } from 'zod';
import { appOriginsSchema, logLevelSchema, portSchema, trustProxySchema } from '@acme/service-kit/config';

/** A document version label such as `2026-01`. */
const versionSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be a version label such as 2026-01');

const configSchema = z.object({
  USERS_PUBLIC_PORT: portSchema(4455),
  USERS_ADMIN_PORT: portSchema(4456),
  USERS_HOST: z.string().default('127.0.0.1'),
  IDENTITY_ADMIN_URL: z.url().default('http://localhost:4434'),
  OAUTH2_ADMIN_URL: z.url().default('http://localhost:4445'),
  APP_ORIGINS: appOriginsSchema,
  MFA_GRACE_DAYS: z.coerce.number().int().min(0).max(365).default(14),
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
  GIT_CLIENT_SECRET: z.string().min(1).default('dev-secret'),
  GIT_OAUTH_SCOPE: z.string().default('read:user'),
  LOGIN_CONFIG_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Encrypts SSO client secrets at rest (≥ 32 characters). The default is for development only. */
  SSO_SECRET_KEY: z.string().min(32).optional(),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  TRUST_PROXY: trustProxySchema,
  LOG_LEVEL: logLevelSchema,
});

export interface Config {
  publicPort: number;
  adminPort: number;
  host: string;
  identityAdminUrl: string;
  oauth2AdminUrl: string;
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
  upstreamTimeoutMs: number;
  ssoSecretKey: string;
  trustProxy: boolean;
  logLevel: string;
}

/** Parses the service configuration once, at start-up. Defaults are the development defaults. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid user service configuration: ${z.prettifyError(parsed.error)}`);
  }
  const c = parsed.data;
  return {
    publicPort: c.USERS_PUBLIC_PORT,
    adminPort: c.USERS_ADMIN_PORT,
    host: c.USERS_HOST,
    identityAdminUrl: stripSlash(c.IDENTITY_ADMIN_URL),
    oauth2AdminUrl: stripSlash(c.OAUTH2_ADMIN_URL),
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
    terms: { version: c.TERMS_VERSION, url: c.TERMS_URL ?? `${new URL(c.APP_BASE_URL).origin}/terms` },
    privacy: {
      version: c.PRIVACY_VERSION,
      url: c.PRIVACY_URL ?? `${new URL(c.APP_BASE_URL).origin}/privacy`,
    },
    git: {
      authorizeUrl: c.GIT_OAUTH_AUTHORIZE_URL,
      tokenUrl: c.GIT_OAUTH_TOKEN_URL,
      apiUrl: stripSlash(c.GIT_API_URL),
      clientId: c.GIT_CLIENT_ID,
      clientSecret: c.GIT_CLIENT_SECRET,
      scope: c.GIT_OAUTH_SCOPE,
    },
    upstreamTimeoutMs: c.UPSTREAM_TIMEOUT_MS,
    ssoSecretKey: c.SSO_SECRET_KEY ?? developmentSsoKey(env),
    trustProxy: c.TRUST_PROXY,
    logLevel: c.LOG_LEVEL,
  };
}

/** Development and tests only: production must set SSO_SECRET_KEY. */
function developmentSsoKey(env: Record<string, string | undefined>): string {
  if (env.NODE_ENV === 'production')
    throw new Error('Invalid user service configuration: SSO_SECRET_KEY is required in production');
  return 'development-only-sso-secret-key-not-for-production';
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
