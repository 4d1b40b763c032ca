import {
  ConfigError,
  retentionSchema,
  logLevelSchema,
  processEnvSchema,
  securityEventsEnvSchema,
  spentRecordsEnvSchema,
  secretListSchema,
  threadPoolEnvSchema,
  upstreamTimeoutSchema,
} from '@acme/service-kit/config';
import { mailWorkerEnvSchema } from '@acme/mail';
import { serviceSettings, type CommonSettings } from '@acme/service-kit/service-config';
import { availableParallelism } from 'node:os';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { z } from 'zod';
import {
  adminAccessFromEnv,
  adminListenerEnvShape,
  adminKeySchema,
  callerKey,
  hostListSchema,
  type AdminAccess,
} from '@acme/service-kit/admin-access';
import { migrateAtStartSchema } from '@acme/service-kit/migrations';
import type { OutboundPolicy } from '@acme/service-kit/outbound';
import { trustProxySchema, type TrustProxy } from '@acme/service-kit/proxy-trust';
import { durationSetting } from '@acme/service-kit/duration';
import { privilegedSessionEnvSchema } from '@acme/service-kit/privileged-session';
import {
  DEV_SP_ENCRYPTION_CERT,
  DEV_SP_ENCRYPTION_KEY,
  DEV_SP_SIGNING_CERT,
  DEV_SP_SIGNING_KEY,
} from './strategies/saml/dev-keys.ts';
import { systemShape, USUAL_PORTS } from '@acme/system-shape';

/** The system as `npm start` shapes it: where the defaults below point. */
const LOCAL = systemShape();
const L = LOCAL.listeners;
const PLATFORM = LOCAL.apps.platform;

const duration = durationSetting;
const url = (def: string) =>
  z
    .string()
    .default(def)
    .pipe(z.url())
    .transform((v) => v.replace(/\/+$/, ''));
const list = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
const int = (def: number) => z.coerce.number().int().nonnegative().default(def);
/** A PEM key or certificate; `\\n` escapes (one-line environment values) become line breaks. */
const pemText = (v: string) => v.replace(/\\n/g, '\n').trim();
const PEM_BLOCK = /^-----BEGIN [A-Z ]+-----\n[\s\S]+\n-----END [A-Z ]+-----$/;
/** A list of PEM certificates, comma-separated (public: published in the SP metadata). */
const pemCerts = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const entries = value.split(',').map((entry) => pemText(entry));
      const problem = (message: string) => {
        ctx.addIssue({ code: 'custom', message, input: undefined });
        return z.NEVER;
      };
      if (entries.some((e) => !PEM_BLOCK.test(e))) return problem('every entry must be a PEM certificate');
      if (new Set(entries).size !== entries.length) return problem('the same certificate appears twice');
      return Object.freeze(entries) as readonly string[];
    })
    .meta({ type: 'PEM list' });
/** A list of PEM private keys, comma-separated: the first is used, every one still decrypts. */
const pemKeys = (description: string, fallback: string) =>
  secretListSchema({
    description,
    min: 64,
    fallback,
    normalise: pemText,
    entry: { pattern: PEM_BLOCK, message: 'every entry must be a PEM block' },
  });

/** Development-only default; production must set IDENTITY_CODE_SECRET (start-up refuses otherwise). */
const DEV_CODE_SECRET = 'development-only-code-secret-change-me-0000';

const EnvSchema = z.object({
  IDENTITY_PUBLIC_PORT: int(USUAL_PORTS.identityPublic).describe('Port of the public (browser-facing) API.'),
  IDENTITY_ADMIN_PORT: int(USUAL_PORTS.identityAdmin).describe('Port of the admin API.'),
  IDENTITY_PUBLIC_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Interface the public API binds (`0.0.0.0` in a container).'),
  IDENTITY_PUBLIC_URL: url(L.identityPublic).describe(
    'Browser-facing base URL of the public API; decides the cookies’ `Secure` flag and the CSRF cookie name.',
  ),
  IDENTITY_ADMIN_URL: url(L.identityAdmin).describe(
    'Base URL of the admin API as other services reach it; its host is always an accepted Host name.',
  ),
  IDENTITY_LOGIN_UI_URL: url(`${PLATFORM}/account/login`).describe('The login screen.'),
  IDENTITY_ERROR_UI_URL: url(`${PLATFORM}/account/error`).describe('The error screen.'),
  IDENTITY_SETTINGS_UI_URL: url(`${PLATFORM}/account/profile`).describe('The account (settings) screen.'),
  IDENTITY_RECOVERY_UI_URL: url(`${PLATFORM}/account/forgot-password`).describe(
    'The account recovery screen.',
  ),
  IDENTITY_VERIFICATION_UI_URL: url(`${PLATFORM}/account/verification`).describe(
    'The address verification screen.',
  ),
  IDENTITY_REGISTRATION_UI_URL: url(`${PLATFORM}/account/registration`).describe('The self sign-up screen.'),
  IDENTITY_DEFAULT_RETURN_URL: z
    .string()
    .default(`${PLATFORM}/`)
    .pipe(z.url())
    .describe('Where a finished flow returns when it was given no `return_to`.'),
  IDENTITY_CORS_ORIGINS: list([PLATFORM, LOCAL.apps.magic].join(',')).describe(
    'Origins whose browser calls are answered (CORS with credentials), comma-separated.',
  ),
  IDENTITY_ALLOWED_RETURN_URLS: list([PLATFORM, LOCAL.apps.magic, L.oauth2Public].join(',')).describe(
    'Allowed `return_to` targets (origins or URL prefixes), comma-separated.',
  ),
  OAUTH2_ADMIN_URL: url(L.oauth2Admin).describe(
    "The authorization server's admin API (login, consent and logout challenges).",
  ),
  OAUTH2_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the authorization server's admin API, when it requires one.")
    .meta({ secret: true }),
  ...adminListenerEnvShape('IDENTITY', 'its URL’s and loopback'),
  IDENTITY_SESSION_LIFESPAN: duration('24h').describe('How long a session lasts.'),
  IDENTITY_FLOW_LIFESPAN: duration('1h').describe('How long a self-service flow may be completed.'),
  ...privilegedSessionEnvSchema.shape,
  IDENTITY_SESSION_CACHE_TTL: duration('30s').describe(
    'How long whoami may answer from the in-memory session cache (0 turns the cache off).',
  ),
  IDENTITY_SESSION_CACHE_SIZE: int(10_000).describe(
    'Sessions the cache holds at most (least recently used go first).',
  ),
  IDENTITY_COOKIE_DOMAIN: z
    .string()
    .optional()
    .describe('Domain attribute of the session cookie (unset: the public URL’s host only).'),
  IDENTITY_LOCKOUT_THRESHOLD: int(10).describe('Wrong passwords in a row that lock an account.'),
  IDENTITY_LOCKOUT_BASE: duration('15m').describe('First lockout’s length; each next one doubles.'),
  IDENTITY_LOCKOUT_MAX: duration('24h').describe('Longest lockout.'),
  IDENTITY_LOCKOUT_RESET_AFTER: duration('24h').describe(
    'Quiet time after which the count of wrong passwords starts again.',
  ),
  IDENTITY_IP_FAILURE_LIMIT: int(100).describe('Failed sign-ins per client address per window.'),
  IDENTITY_IP_FAILURE_WINDOW: duration('10m').describe('The window of IDENTITY_IP_FAILURE_LIMIT.'),
  TRUST_PROXY: trustProxySchema,
  IDENTITY_MIGRATE_AT_START: migrateAtStartSchema,
  IDENTITY_CODE_MAIL_LIMIT: int(5).describe('Code mails (recovery, verification) per address per window.'),
  IDENTITY_REGISTRATION_IP_LIMIT: int(20).describe(
    'Self sign-ups (registrations that reach the user service) per client address per window.',
  ),
  IDENTITY_REGISTRATION_IP_WINDOW: duration('1h').describe('The window of IDENTITY_REGISTRATION_IP_LIMIT.'),
  IDENTITY_CODE_MAIL_WINDOW: duration('1h').describe('The window of IDENTITY_CODE_MAIL_LIMIT.'),
  IDENTITY_CODE_SECRET: secretListSchema({
    description:
      'Keys of the HMAC under which one-time codes and backup codes are stored (comma-separated, at least 32 characters each): the first stores new codes, every one still matches',
    min: 32,
    fallback: DEV_CODE_SECRET,
  }),
  IDENTITY_CODE_FAILURES_PER_FLOW: int(5).describe('Wrong recovery or verification codes per flow.'),
  IDENTITY_CODE_FAILURES_PER_ADDRESS: int(10).describe('Wrong codes per address per window.'),
  IDENTITY_CODE_FAILURE_WINDOW: duration('1h').describe('The window of IDENTITY_CODE_FAILURES_PER_ADDRESS.'),
  // One address may be a whole office behind a NAT: 1,000 people, of whom 1 % mistype a code twice in
  // a busy hour, make 1000 × 0.01 × 2 = 20 wrong codes; 200 leaves ten times that (docs/security.md).
  // Guessing is stopped per flow and per address, not here.
  IDENTITY_CODE_IP_LIMIT: int(200).describe('Code attempts per client address per window.'),
  IDENTITY_CODE_IP_WINDOW: duration('1h').describe('The window of IDENTITY_CODE_IP_LIMIT.'),
  IDENTITY_TOTP_FAILURES_PER_ACCOUNT: int(10).describe('Wrong second-factor codes per account per window.'),
  IDENTITY_TOTP_FAILURE_WINDOW: duration('1h').describe('The window of IDENTITY_TOTP_FAILURES_PER_ACCOUNT.'),
  IDENTITY_BODY_LIMIT: int(4096).describe('Largest request body of the self-service API (bytes).'),
  IDENTITY_METHODS: list('password,totp,lookup_secret,code,profile,oidc,saml,passkey,webauthn').describe(
    'Enabled self-service methods, comma-separated.',
  ),
  IDENTITY_WEBAUTHN_RP_ID: z
    .string()
    .regex(/^[a-z0-9.-]{1,253}$/)
    .optional()
    .describe(
      'WebAuthn relying party id: the parent domain every application shares (default: the longest domain common to the WebAuthn origins).',
    ),
  IDENTITY_WEBAUTHN_RP_NAME: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('Relying party name shown by authenticators (default: IDENTITY_APP_NAME).'),
  IDENTITY_WEBAUTHN_ORIGINS: list('').describe(
    'Origins a passkey may be used from, comma-separated (default: IDENTITY_CORS_ORIGINS).',
  ),
  IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN: duration('10m').describe(
    'How long a WebAuthn challenge may be answered (each is answered once).',
  ),
  IDENTITY_WEBAUTHN_BODY_LIMIT: int(16_384).describe(
    'Body limit of login and settings submits, which carry WebAuthn answers (bytes).',
  ),
  IDENTITY_TOTP_ISSUER: z
    .string()
    .min(1)
    .max(64)
    .default('Acme Research')
    .describe('Issuer shown in authenticator apps.'),
  IDENTITY_APP_NAME: z.string().min(1).max(64).default('Acme Research').describe('Product name in mails.'),
  USERS_ADMIN_URL: url(L.usersAdmin).describe(
    "The user service's admin API: organisations' SSO providers, just-in-time members, sign-up rules.",
  ),
  USERS_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the user service's admin API, when it requires one.")
    .meta({ secret: true }),
  UPSTREAM_TIMEOUT_MS: upstreamTimeoutSchema,
  IDENTITY_SIGNUP_OPEN_CACHE: duration('30s').describe(
    'How long the user service\'s answer to "is self sign-up open for any organisation?" is held: a change in the console reaches the registration page within it.',
  ),
  IDENTITY_OIDC_TIMEOUT: duration('10s').describe(
    "Time-out of each call to an organisation's identity provider.",
  ),
  IDENTITY_SSO_HTTP_HOSTS: hostListSchema.describe(
    "Hosts of organisations' identity providers that may be reached over plain http (e.g. `localhost` in development); everything else: https.",
  ),
  IDENTITY_SSO_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .describe('Development only: let calls to those providers reach loopback and private addresses.'),
  // Development defaults are public and refused in production.
  IDENTITY_SAML_SIGNING_KEY: pemKeys(
    'SAML service provider signing keys (PEM, comma-separated): the first signs AuthnRequests; IDENTITY_SAML_SIGNING_CERT lists their certificates in the same order',
    DEV_SP_SIGNING_KEY,
  ),
  IDENTITY_SAML_SIGNING_CERT: pemCerts(DEV_SP_SIGNING_CERT).describe(
    'PEM certificates of the SAML signing keys (comma-separated, in the order of IDENTITY_SAML_SIGNING_KEY), all published in the service provider metadata.',
  ),
  IDENTITY_SAML_ENCRYPTION_KEY: pemKeys(
    'SAML service provider decryption keys (PEM, comma-separated): encrypted assertions are opened with any of them; IDENTITY_SAML_ENCRYPTION_CERT lists their certificates in the same order',
    DEV_SP_ENCRYPTION_KEY,
  ),
  IDENTITY_SAML_ENCRYPTION_CERT: pemCerts(DEV_SP_ENCRYPTION_CERT).describe(
    'PEM certificates of the SAML decryption keys (comma-separated, in the order of IDENTITY_SAML_ENCRYPTION_KEY), all published in the service provider metadata, the first first.',
  ),
  IDENTITY_SAML_CLOCK_SKEW: duration('2m')
    .refine((ms) => ms <= 24 * HOUR_MS, 'must be at most 24h')
    .describe('Accepted clock difference to an identity provider at NotBefore/NotOnOrAfter (at most 24h).'),
  IDENTITY_SAML_BODY_LIMIT: int(262_144).describe('Largest SAMLResponse form body the ACS reads (bytes).'),
  IDENTITY_HASH_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024)
    .optional()
    .describe('Password hashes running at once (default: the number of CPUs).'),
  IDENTITY_HASH_QUEUE: int(64).describe('Hashes allowed to wait for a slot; past it, 503 with Retry-After.'),
  IDENTITY_HASH_NICE: z.coerce
    .number()
    .int()
    .min(0)
    .max(19)
    .default(10)
    .describe("Nice value of libuv's thread pool, where hashing runs (Linux; 0 leaves it as it is)."),
  LOG_LEVEL: logLevelSchema,
  ...securityEventsEnvSchema.shape,
  ...spentRecordsEnvSchema.shape,
  IDENTITY_ENDED_SESSIONS_RETENTION_DAYS: retentionSchema(
    7,
    365,
    'Days a session is kept after it expired or was revoked (and a stored self-service error after it was shown), before the cleanup deletes it.',
  ),
  IDENTITY_SECURITY_EVENTS: z
    .enum(['on', 'off'])
    .default('on')
    .describe('`off` only for the write-cost bench; refused in production.'),
});

/** Every setting of the identity service's process (for the generated reference), and how they are read. */
export const settings = serviceSettings({
  part: 'identity',
  title: 'Identity service',
  prefix: 'IDENTITY',
  managementPort: USUAL_PORTS.identityManagement,
  schema: EnvSchema,
  // The names these settings had before they were made one per setting across services.
  renames: {
    TRUST_PROXY: ['IDENTITY_TRUST_PROXY'],
    USERS_ADMIN_URL: ['IDENTITY_USERS_ADMIN_URL'],
    SECURITY_EVENTS_RETENTION_DAYS: ['IDENTITY_SECURITY_EVENTS_RETENTION_DAYS'],
    SECURITY_EVENTS_CLEANUP_BATCH: ['IDENTITY_SECURITY_EVENTS_CLEANUP_BATCH'],
    PRIVILEGED_SESSION_MAX_AGE: ['IDENTITY_PRIVILEGED_SESSION_MAX_AGE'],
  },
  alongside: [mailWorkerEnvSchema],
  process: [processEnvSchema, threadPoolEnvSchema],
});

const HOUR_MS = 3_600_000;

/** How long ended records stay before the cleanup deletes them. */
export interface IdentityRetention {
  /** Flows, sign-in states, spent challenges and assertions, attempt windows: after they ended. */
  spentMs: number;
  /** Spent passkey challenges: the spent records' retention, or the challenges' lifespan when longer. */
  spentChallengesMs: number;
  /** Spent SAML assertion ids after NotOnOrAfter: the spent records' retention, or the clock skew when longer. */
  spentAssertionsMs: number;
  /** Sessions after expiry or revocation; stored self-service errors. */
  endedSessionsMs: number;
}

export interface Config extends CommonSettings {
  publicPort: number;
  adminPort: number;
  /** Bind address of the public API. */
  publicHost: string;
  /** Browser-facing base URL of the public API (no trailing slash). Decides cookie `Secure` and the CSRF cookie name. */
  publicUrl: string;
  adminUrl: string;
  /** Admin listener: bind address, bearer key, accepted Host names. */
  admin: AdminAccess;
  ui: {
    login: string;
    error: string;
    settings: string;
    recovery: string;
    verification: string;
    registration: string;
  };
  defaultReturnUrl: string;
  corsOrigins: string[];
  allowedReturnUrls: string[];
  oauth2AdminUrl: string;
  oauth2AdminKey: string | undefined;
  sessionLifespanMs: number;
  flowLifespanMs: number;
  privilegedSessionMaxAgeMs: number;
  /** whoami's session cache: entry lifetime (0 = off) and bound. */
  sessionCache: { ttlMs: number; maxEntries: number };
  cookieDomain: string | undefined;
  lockout: { threshold: number; baseMs: number; maxMs: number; resetAfterMs: number };
  ipLimit: { failures: number; windowMs: number };
  /** Proxies trusted to tell the client's address (TRUST_PROXY; see service-kit proxy-trust). */
  trustProxy: TrustProxy;
  /** Apply pending migrations at start (`IDENTITY_MIGRATE_AT_START`, default true); false: refuse to start while any is pending. */
  migrateAtStart: boolean;
  /** Code mails (recovery, verification) per address per window. */
  codeMailLimit: { sends: number; windowMs: number };
  registrationIpLimit: { limit: number; windowMs: number };
  /** HMAC keys of stored one-time codes: the first stores, every one matches. */
  codeSecrets: readonly string[];
  /** Wrong recovery/verification codes: per flow, per address per window, attempts per IP per window. */
  codeLimits: { perFlow: number; perAddress: number; windowMs: number; perIp: number; ipWindowMs: number };
  /** Wrong second-factor codes: per flow, per account per window. */
  totpLimits: { perAccount: number; windowMs: number };
  bodyLimit: number;
  /** Enabled self-service methods (strategies), as Kratos's `selfservice.methods`. */
  methods: string[];
  totpIssuer: string;
  appName: string;
  /** WebAuthn (passkeys, security keys): relying party, allowed origins, challenge lifetime. */
  webauthn: {
    rpId: string;
    rpName: string;
    origins: string[];
    challengeLifespanMs: number;
    bodyLimit: number;
  };
  usersAdminUrl: string;
  usersAdminKey: string | undefined;
  /** Time-out of each call to the user service (its SSO directory, sign-up and trusted networks). */
  upstreamTimeoutMs: number;
  /** How long whether self sign-up is open anywhere is held (strategies/registration/sign-up-directory.ts). */
  signUpOpenCacheMs: number;
  /** The guard of every call to an organisation's identity provider (docs/security.md, SSRF). */
  ssoOutbound: OutboundPolicy;
  /** The SAML service provider (strategies/saml): its keys, clock skew, ACS body limit. */
  saml: SamlSpConfig;
  /** The bounded password hashing pool (`password/pool.ts`). */
  hashPool: { concurrency: number; maxQueue: number; nice: number };
  logLevel: string;
  /** The security event log: whether it is written (always, but in the bench), its retention. */
  securityEvents: { enabled: boolean; retentionDays: number; cleanupBatch: number };
  /** How long ended records stay before the cleanup deletes them (db/cleanup.ts). */
  retention: IdentityRetention;
}

export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = settings.readEnv(given);
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const e = EnvSchema.parse(clean);
  return Object.freeze({
    ...settings.common(clean),
    publicPort: e.IDENTITY_PUBLIC_PORT,
    publicHost: e.IDENTITY_PUBLIC_HOST,
    adminPort: e.IDENTITY_ADMIN_PORT,
    publicUrl: e.IDENTITY_PUBLIC_URL,
    adminUrl: e.IDENTITY_ADMIN_URL,
    admin: adminAccessFromEnv('IDENTITY', e, [new URL(e.IDENTITY_ADMIN_URL).hostname.toLowerCase()]),
    ui: {
      login: e.IDENTITY_LOGIN_UI_URL,
      error: e.IDENTITY_ERROR_UI_URL,
      settings: e.IDENTITY_SETTINGS_UI_URL,
      recovery: e.IDENTITY_RECOVERY_UI_URL,
      verification: e.IDENTITY_VERIFICATION_UI_URL,
      registration: e.IDENTITY_REGISTRATION_UI_URL,
    },
    defaultReturnUrl: e.IDENTITY_DEFAULT_RETURN_URL,
    corsOrigins: e.IDENTITY_CORS_ORIGINS,
    allowedReturnUrls: e.IDENTITY_ALLOWED_RETURN_URLS,
    oauth2AdminUrl: e.OAUTH2_ADMIN_URL,
    oauth2AdminKey: callerKey(e.OAUTH2_ADMIN_KEY),
    sessionLifespanMs: e.IDENTITY_SESSION_LIFESPAN,
    flowLifespanMs: e.IDENTITY_FLOW_LIFESPAN,
    privilegedSessionMaxAgeMs: e.PRIVILEGED_SESSION_MAX_AGE,
    sessionCache: { ttlMs: e.IDENTITY_SESSION_CACHE_TTL, maxEntries: e.IDENTITY_SESSION_CACHE_SIZE },
    cookieDomain: e.IDENTITY_COOKIE_DOMAIN,
    lockout: {
      threshold: e.IDENTITY_LOCKOUT_THRESHOLD,
      baseMs: e.IDENTITY_LOCKOUT_BASE,
      maxMs: e.IDENTITY_LOCKOUT_MAX,
      resetAfterMs: e.IDENTITY_LOCKOUT_RESET_AFTER,
    },
    ipLimit: { failures: e.IDENTITY_IP_FAILURE_LIMIT, windowMs: e.IDENTITY_IP_FAILURE_WINDOW },
    trustProxy: e.TRUST_PROXY,
    migrateAtStart: e.IDENTITY_MIGRATE_AT_START,
    codeMailLimit: { sends: e.IDENTITY_CODE_MAIL_LIMIT, windowMs: e.IDENTITY_CODE_MAIL_WINDOW },
    registrationIpLimit: {
      limit: e.IDENTITY_REGISTRATION_IP_LIMIT,
      windowMs: e.IDENTITY_REGISTRATION_IP_WINDOW,
    },
    codeSecrets: codeSecrets(e.IDENTITY_CODE_SECRET, env.NODE_ENV),
    codeLimits: {
      perFlow: e.IDENTITY_CODE_FAILURES_PER_FLOW,
      perAddress: e.IDENTITY_CODE_FAILURES_PER_ADDRESS,
      windowMs: e.IDENTITY_CODE_FAILURE_WINDOW,
      perIp: e.IDENTITY_CODE_IP_LIMIT,
      ipWindowMs: e.IDENTITY_CODE_IP_WINDOW,
    },
    totpLimits: {
      perAccount: e.IDENTITY_TOTP_FAILURES_PER_ACCOUNT,
      windowMs: e.IDENTITY_TOTP_FAILURE_WINDOW,
    },
    bodyLimit: e.IDENTITY_BODY_LIMIT,
    methods: e.IDENTITY_METHODS,
    totpIssuer: e.IDENTITY_TOTP_ISSUER,
    appName: e.IDENTITY_APP_NAME,
    webauthn: webauthnConfig(e),
    usersAdminUrl: e.USERS_ADMIN_URL,
    usersAdminKey: callerKey(e.USERS_ADMIN_KEY),
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    signUpOpenCacheMs: e.IDENTITY_SIGNUP_OPEN_CACHE,
    ssoOutbound: {
      httpHosts: e.IDENTITY_SSO_HTTP_HOSTS,
      allowPrivate: e.IDENTITY_SSO_ALLOW_PRIVATE === 'true',
      timeoutMs: e.IDENTITY_OIDC_TIMEOUT,
    },
    saml: samlConfig(e, env.NODE_ENV),
    hashPool: {
      concurrency: e.IDENTITY_HASH_CONCURRENCY ?? availableParallelism(),
      maxQueue: e.IDENTITY_HASH_QUEUE,
      nice: e.IDENTITY_HASH_NICE,
    },
    logLevel: e.LOG_LEVEL,
    securityEvents: {
      enabled: securityEventsEnabled(e.IDENTITY_SECURITY_EVENTS, env.NODE_ENV),
      retentionDays: e.SECURITY_EVENTS_RETENTION_DAYS,
      cleanupBatch: e.SECURITY_EVENTS_CLEANUP_BATCH,
    },
    retention: {
      spentMs: e.SPENT_RECORDS_RETENTION_HOURS * HOUR_MS,
      // A spent challenge must outlive the challenge itself, or its answer could be replayed.
      spentChallengesMs: Math.max(
        e.SPENT_RECORDS_RETENTION_HOURS * HOUR_MS,
        e.IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN,
      ),
      // An assertion is accepted until NotOnOrAfter plus the clock skew: its spent id stays that long.
      spentAssertionsMs: Math.max(e.SPENT_RECORDS_RETENTION_HOURS * HOUR_MS, e.IDENTITY_SAML_CLOCK_SKEW),
      endedSessionsMs: e.IDENTITY_ENDED_SESSIONS_RETENTION_DAYS * 24 * HOUR_MS,
    },
  });
}

function codeSecrets(secrets: readonly string[], nodeEnv: string | undefined): readonly string[] {
  if (secrets.includes(DEV_CODE_SECRET) && nodeEnv === 'production')
    throw new ConfigError('IDENTITY_CODE_SECRET must be set in production (at least 32 characters).');
  return secrets;
}

interface SamlSpConfig {
  /** Signs AuthnRequests (the first of IDENTITY_SAML_SIGNING_KEY). */
  signingKey: string;
  /** Every signing key's certificate, the signing one's first: all are published. */
  signingCerts: readonly string[];
  /** Every key that may open an encrypted assertion. */
  encryptionKeys: readonly string[];
  /** Their certificates in the same order: all are published, so an IdP may encrypt to any. */
  encryptionCerts: readonly string[];
  clockSkewMs: number;
  bodyLimit: number;
}

function samlConfig(e: z.infer<typeof EnvSchema>, nodeEnv: string | undefined): SamlSpConfig {
  const dev =
    e.IDENTITY_SAML_SIGNING_KEY.includes(pemText(DEV_SP_SIGNING_KEY)) ||
    e.IDENTITY_SAML_ENCRYPTION_KEY.includes(pemText(DEV_SP_ENCRYPTION_KEY));
  if (dev && nodeEnv === 'production' && e.IDENTITY_METHODS.includes('saml'))
    throw new ConfigError(
      'IDENTITY_SAML_SIGNING_KEY/_CERT and IDENTITY_SAML_ENCRYPTION_KEY/_CERT must be set in production (or drop saml from IDENTITY_METHODS).',
    );
  checkKeyCertificates('IDENTITY_SAML_SIGNING', e.IDENTITY_SAML_SIGNING_KEY, e.IDENTITY_SAML_SIGNING_CERT);
  checkKeyCertificates(
    'IDENTITY_SAML_ENCRYPTION',
    e.IDENTITY_SAML_ENCRYPTION_KEY,
    e.IDENTITY_SAML_ENCRYPTION_CERT,
  );
  return {
    signingKey: e.IDENTITY_SAML_SIGNING_KEY[0]!,
    signingCerts: e.IDENTITY_SAML_SIGNING_CERT,
    encryptionKeys: e.IDENTITY_SAML_ENCRYPTION_KEY,
    encryptionCerts: e.IDENTITY_SAML_ENCRYPTION_CERT,
    clockSkewMs: e.IDENTITY_SAML_CLOCK_SKEW,
    bodyLimit: e.IDENTITY_SAML_BODY_LIMIT,
  };
}

/**
 * Each key's certificate at the same place in its list (a rotation adds a key and its certificate
 * second, makes them first, then drops the old pair); the message names the settings, never a key.
 */
function checkKeyCertificates(prefix: string, keys: readonly string[], certs: readonly string[]): void {
  const mismatch = (detail: string) =>
    new ConfigError(
      `${prefix}_CERT must list the certificate of each ${prefix}_KEY entry, in the same order: ${detail}.`,
    );
  if (keys.length !== certs.length)
    throw mismatch(`${keys.length} key(s) but ${certs.length} certificate(s)`);
  keys.forEach((key, i) => {
    let same: boolean;
    try {
      const fromKey = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'der' });
      const fromCert = new X509Certificate(certs[i]!).publicKey.export({ type: 'spki', format: 'der' });
      same = fromKey.equals(fromCert);
    } catch {
      throw mismatch(`entry ${i + 1} cannot be read`);
    }
    if (!same) throw mismatch(`entry ${i + 1} is another key's certificate`);
  });
}

function securityEventsEnabled(value: 'on' | 'off', nodeEnv: string | undefined): boolean {
  if (value === 'off' && nodeEnv === 'production')
    throw new ConfigError(
      'IDENTITY_SECURITY_EVENTS=off is for the write-cost bench only, never in production.',
    );
  return value === 'on';
}

/** The relying party: its id must be every allowed origin's host or a parent domain of it. */
function webauthnConfig(e: z.infer<typeof EnvSchema>): Config['webauthn'] {
  const origins = (
    e.IDENTITY_WEBAUTHN_ORIGINS.length ? e.IDENTITY_WEBAUTHN_ORIGINS : e.IDENTITY_CORS_ORIGINS
  ).map((o) => new URL(o).origin);
  const hosts = origins.map((o) => new URL(o).hostname);
  const rpId = e.IDENTITY_WEBAUTHN_RP_ID ?? commonDomain(hosts);
  const on = e.IDENTITY_METHODS.some((m) => m === 'passkey' || m === 'webauthn');
  const outside = hosts.filter((h) => h !== rpId && !h.endsWith(`.${rpId}`));
  if (on && (!rpId || outside.length))
    throw new ConfigError(
      `IDENTITY_WEBAUTHN_RP_ID (${rpId || 'none'}) must be a parent domain of every WebAuthn origin${outside.length ? ` (not of ${outside.join(', ')})` : ''}; set it, or IDENTITY_WEBAUTHN_ORIGINS, or drop passkey,webauthn from IDENTITY_METHODS.`,
    );
  return {
    rpId,
    rpName: e.IDENTITY_WEBAUTHN_RP_NAME ?? e.IDENTITY_APP_NAME,
    origins,
    challengeLifespanMs: e.IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN,
    bodyLimit: e.IDENTITY_WEBAUTHN_BODY_LIMIT,
  };
}

/** The longest domain (whole labels) that every host is or ends in; '' when there is none. */
function commonDomain(hosts: string[]): string {
  if (!hosts.length) return '';
  const split = hosts.map((h) => h.split('.').reverse());
  const common: string[] = [];
  for (let i = 0; split.every((labels) => i < labels.length && labels[i] === split[0]![i]); i++)
    common.push(split[0]![i]!);
  return common.reverse().join('.');
}
