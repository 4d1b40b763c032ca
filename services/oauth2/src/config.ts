import {
  ConfigError,
  logLevelSchema,
  optionalSecretListSchema,
  retentionSchema,
  upstreamTimeoutSchema,
} from '@acme/service-kit/config';
import { serviceSettings, type CommonSettings } from '@acme/service-kit/service-config';
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
import { trustProxySchema, type TrustProxy } from '@acme/service-kit/proxy-trust';
import { localUrl, systemShape, USUAL_PORTS } from '@acme/system-shape';

/**
 * Configuration of the authorization server, parsed once at start-up from an env-like record.
 * Durations are in seconds. Defaults are the development defaults (see the service README).
 */

const ClientSchema = z.object({
  client_id: z.string().min(1),
  /** The application's origin, e.g. http://localhost:4000; URIs below derive from it. */
  origin: z.url().transform((v) => new URL(v).origin),
  client_name: z.string().optional(),
  /** First-party client: consent is granted by the server without the consent screen (Hydra's flag). */
  skip_consent: z.boolean().optional(),
});
export type ClientConfig = z.infer<typeof ClientSchema>;

/** The applications' origins as `npm start` shapes the system: the default clients' origins. */
const LOCAL_APPS = systemShape().apps;

const DEFAULT_CLIENTS: ClientConfig[] = [
  { client_id: 'platform', origin: LOCAL_APPS.platform, client_name: 'Platform', skip_consent: true },
  { client_id: 'magic', origin: LOCAL_APPS.magic, client_name: 'MAGIC', skip_consent: true },
];

/**
 * A public client of the device authorization grant (RFC 8628): no secret, no redirect URI. Its
 * `verification_uri` is `<verification_origin>/account/device` (the first application by default).
 */
const DeviceClientSchema = z.object({
  client_id: z.string().min(1),
  client_name: z.string().optional(),
  verification_origin: z
    .url()
    .transform((v) => new URL(v).origin)
    .optional(),
  /** This client's device-code lifetime in seconds (default OAUTH2_DEVICE_CODE_TTL), e.g. a short one for tests. */
  code_ttl_seconds: z.number().int().positive().max(86_400).optional(),
});
type DeviceClientConfig = z.infer<typeof DeviceClientSchema>;

const DEFAULT_DEVICE_CLIENTS: DeviceClientConfig[] = [
  { client_id: 'research-cli', client_name: 'Research CLI' },
];

const seconds = (def: number) => z.coerce.number().int().positive().default(def);
/** A period: `30d`, `12h`, `90m`, `3600s` or plain seconds (at least a minute). */
const period = z
  .string()
  .trim()
  .regex(/^\d+[smhd]?$/, 'a period such as 30d, 12h, 90m or 3600s')
  .transform(
    (v) =>
      Number(v.replace(/[smhd]$/, '')) * { s: 1, m: 60, h: 3600, d: 86_400 }[/[smhd]$/.exec(v)?.[0] ?? 's']!,
  )
  .pipe(z.number().int().min(60, 'at least a minute'));
const port = (def: number) => z.coerce.number().int().min(0).max(65535).default(def);

const clientsFromJson = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'OAUTH2_CLIENTS must be JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.array(ClientSchema).min(1));

const deviceClientsFromJson = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'OAUTH2_DEVICE_CLIENTS must be JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.array(DeviceClientSchema));

const EnvSchema = z.object({
  OAUTH2_PUBLIC_URL: z
    .url()
    .optional()
    .describe(
      'The issuer: the public base URL every published URL is built from (default `http://localhost:<OAUTH2_PUBLIC_PORT>`).',
    ),
  OAUTH2_PUBLIC_PORT: port(USUAL_PORTS.oauth2Public).describe('Port of the public API (the issuer).'),
  OAUTH2_ADMIN_PORT: port(USUAL_PORTS.oauth2Admin).describe('Port of the admin API.'),
  OAUTH2_PUBLIC_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Interface the public API binds (`0.0.0.0` in a container).'),
  ...adminListenerEnvShape('OAUTH2'),
  OAUTH2_CLIENTS: clientsFromJson
    .optional()
    .describe('JSON array of `{client_id, origin, client_name?, skip_consent?}`; wins over APP_ORIGINS.'),
  APP_ORIGINS: z
    .string()
    .optional()
    .describe(
      "The platform's own applications as first-party clients: `platform=https://…,magic=https://…` (default: platform and magic on localhost).",
    ),
  OAUTH2_DEVICE_CLIENTS: deviceClientsFromJson
    .optional()
    .describe(
      'JSON array of device-grant clients `{client_id, client_name?, verification_origin?}`; `[]` turns the device grant off.',
    ),
  OAUTH2_DEVICE_CODE_TTL: seconds(600).describe('Lifetime of a device code and its user code (seconds).'),
  OAUTH2_DEVICE_POLL_INTERVAL: seconds(5).describe('Minimum seconds between two polls of one device code.'),
  OAUTH2_DEVICE_AUTH_PER_IP: seconds(20).describe('Device codes one client address may obtain per window.'),
  OAUTH2_DEVICE_USER_CODE_ATTEMPTS_PER_IP: seconds(10).describe(
    'User-code attempts one client address may make per window.',
  ),
  OAUTH2_DEVICE_LIMIT_WINDOW_SECONDS: seconds(600).describe('The window of both device limits (seconds).'),
  OAUTH2_ACCESS_TOKEN_TTL: seconds(600).describe('Access token lifetime (seconds).'),
  // ES256 signs in about a quarter of RS256's time (ADR 0017). ID tokens are signed as each client
  // registered (RS256 by default), so the key set holds a current key of each.
  OAUTH2_ACCESS_TOKEN_ALG: z
    .enum(['ES256', 'RS256'])
    .default('ES256')
    .describe("JWT access tokens' signature algorithm; RS256 for resource servers that accept nothing else."),
  OAUTH2_ID_TOKEN_TTL: seconds(3600).describe('ID token lifetime (seconds).'),
  OAUTH2_REFRESH_TOKEN_TTL: seconds(30 * 24 * 3600).describe(
    'Refresh token lifetime since its last use (seconds).',
  ),
  OAUTH2_AUTH_CODE_TTL: seconds(60).describe('Authorization code lifetime (seconds).'),
  OAUTH2_INTERACTION_TTL: seconds(1800).describe(
    'How long a login or consent interaction may take (seconds).',
  ),
  OAUTH2_SESSION_TTL: seconds(24 * 3600).describe(
    "The authorization server's own session lifetime (seconds).",
  ),
  OAUTH2_GRANT_TTL: seconds(90 * 24 * 3600).describe(
    'Absolute lifetime of a grant, and so of every refresh token of it (seconds).',
  ),
  OAUTH2_IDLE_GRANT_RETENTION_HOURS: retentionSchema(
    24,
    24 * 90,
    "Hours a grant is kept once it is this old and none of its codes or tokens is live any more (then the cleanup deletes it with its consent session; a refresh token of it that is still live keeps it). A third-party client's consent is remembered only while a grant of it exists.",
  ),
  OAUTH2_M365_GRANT_TTL: seconds(24 * 3600).describe(
    'Absolute lifetime of a grant a Microsoft 365 person approved on a device page (seconds).',
  ),
  USERS_ADMIN_URL: z
    .url()
    .optional()
    .describe(
      "The user service's admin API: every refresh re-reads the grant's claims there (and checks the identity session). Unset only when this server runs alone.",
    ),
  USERS_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the user service's admin API, when it requires one.")
    .meta({ secret: true }),
  UPSTREAM_TIMEOUT_MS: upstreamTimeoutSchema,
  OAUTH2_REFRESH_GRACE_SECONDS: z.coerce
    .number()
    .min(0)
    .max(60)
    .default(5)
    .describe('Seconds during which a rotated refresh token may be used once more (parallel tabs).'),
  OAUTH2_KEY_RELOAD_SECONDS: seconds(30).describe(
    'How often each instance re-reads the signing keys (a rotation elsewhere, a retired key’s end).',
  ),
  OAUTH2_KEY_ROTATE_EVERY: period
    .optional()
    .describe(
      'Rotates the signing keys when they have signed this long (30d, 12h…; unset: by hand only, keys:rotate). The previous keys stay published until the longest token lifetime after; one instance rotates per period',
    ),
  OAUTH2_KEYS_SECRET: optionalSecretListSchema({
    description:
      'Keys that encrypt the signing keys and cookie keys at rest (AES-256-GCM; comma-separated, at least 32 characters each): the first encrypts, every one decrypts. Required in production; unset elsewhere: kept in clear',
    min: 32,
  }),
  TRUST_PROXY: trustProxySchema,
  LOG_LEVEL: logLevelSchema,
  OAUTH2_MIGRATE_AT_START: migrateAtStartSchema,
  OAUTH2_CLIENT_SECRET_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600)
    .default(24 * 3600)
    .describe(
      "Seconds a client's previous secret is still accepted after a rotation (POST /admin/clients/{id}/secrets/rotate, or a PUT with a new client_secret).",
    ),
  OAUTH2_JWKS_URI_HTTP_HOSTS: hostListSchema.describe(
    "Hosts a client's jwks_uri may name over plain http (development stand-ins only); every other jwks_uri must be https.",
  ),
  OAUTH2_JWKS_URI_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      "Development only: let a client's jwks_uri reach loopback and private addresses (refused otherwise, against server-side request forgery).",
    ),
  OAUTH2_REGISTRATION: z
    .enum(['off', 'loopback', 'open'])
    .default('off')
    .describe(
      'Dynamic client registration at /oauth2/register: `off`; `loopback` (only clients whose redirect URIs are on a loopback host, for assistants on a developer machine); `open` (https or loopback redirect URIs).',
    ),
  OAUTH2_CLIENT_ID_METADATA_DOCUMENTS: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      'Client ID metadata documents: a client may name itself by an https URL serving its metadata (client_name, redirect_uris), which the server fetches (public addresses only, at most 5 KiB, kept 5 minutes) and treats as a public client with PKCE. Plain http loopback documents only with OAUTH2_REGISTRATION=loopback.',
    ),
  OAUTH2_REGISTRATION_INITIAL_ACCESS_TOKEN: z
    .string()
    .min(32)
    .optional()
    .describe('When set, a registration must present it (Authorization: Bearer); at least 32 characters.')
    .meta({ secret: true }),
  OAUTH2_REGISTRATION_PER_IP: seconds(20).describe(
    'Client registrations one client address may make per window.',
  ),
  OAUTH2_REGISTRATION_WINDOW_SECONDS: seconds(3600).describe(
    'The window of OAUTH2_REGISTRATION_PER_IP (seconds).',
  ),
  OAUTH2_RESOURCE_SERVERS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const urls = v
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      for (const u of urls) {
        const url = URL.parse(u);
        if (!url || url.hash || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
          ctx.addIssue({ code: 'custom', message: `OAUTH2_RESOURCE_SERVERS: ${u} is not an http(s) URL` });
          return z.NEVER;
        }
      }
      return urls;
    })
    .describe(
      "Resource servers besides the platform's APIs (RFC 8707 resource indicators, comma-separated URLs, such as the agent service's MCP endpoint): a token asked for one carries it as its only audience.",
    ),
  OAUTH2_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024)
    .describe('Largest request body (bytes).'),
});

/** Every setting of the authorization server's process (for the generated reference), and how they are read. */
export const settings = serviceSettings({
  part: 'oauth2',
  title: 'Authorization server',
  prefix: 'OAUTH2',
  managementPort: USUAL_PORTS.oauth2Management,
  schema: EnvSchema,
  // The names these settings had before they were made one per setting across services.
  renames: {
    OAUTH2_PUBLIC_URL: ['ISSUER'],
    TRUST_PROXY: ['OAUTH2_TRUST_PROXY'],
    UPSTREAM_TIMEOUT_MS: ['OAUTH2_UPSTREAM_TIMEOUT_MS'],
  },
});

export interface OAuth2Config extends CommonSettings {
  issuer: string;
  publicPort: number;
  adminPort: number;
  /** Bind address of the public API. */
  publicHost: string;
  /** Admin listener: bind address, bearer key, accepted Host names. */
  admin: AdminAccess;
  clients: ClientConfig[];
  /** Public clients of the device grant, each with its verification origin resolved. */
  deviceClients: (Required<Omit<DeviceClientConfig, 'code_ttl_seconds'>> &
    Pick<DeviceClientConfig, 'code_ttl_seconds'>)[];
  device: {
    codeTtl: number;
    pollInterval: number;
    authPerIp: number;
    userCodeAttemptsPerIp: number;
    limitWindowSeconds: number;
  };
  /** JWT access tokens' signature algorithm (OAUTH2_ACCESS_TOKEN_ALG). */
  accessTokenAlg: 'ES256' | 'RS256';
  ttl: {
    accessToken: number;
    idToken: number;
    refreshToken: number;
    authorizationCode: number;
    interaction: number;
    session: number;
    grant: number;
    m365Grant: number;
  };
  /** Hours an idle grant (no live code or token) is kept before the cleanup deletes it. */
  idleGrantRetentionHours: number;
  /** The user service's admin API (grant claims and session checks), when configured. */
  usersAdminUrl: string | undefined;
  usersAdminKey: string | undefined;
  upstreamTimeoutMs: number;
  /** Seconds during which a rotated refresh token may still be used once more (parallel tabs). */
  refreshGraceSeconds: number;
  keyReloadSeconds: number;
  /** OAUTH2_KEY_ROTATE_EVERY in seconds; undefined: rotation by hand only. */
  keyRotateEverySeconds: number | undefined;
  /** OAUTH2_KEYS_SECRET: the first seals the key row, every one opens it; undefined: clear (not in production). */
  keysSecrets: readonly string[] | undefined;
  /** Proxies trusted to tell the client's address (TRUST_PROXY; see service-kit proxy-trust). */
  trustProxy: TrustProxy;
  /** Apply pending migrations at start (`OAUTH2_MIGRATE_AT_START`, default true); false: refuse to start while any is pending. */
  migrateAtStart: boolean;
  bodyLimitBytes: number;
  logLevel: string;
  /** Seconds a rotated-out client secret is still accepted. */
  clientSecretGraceSeconds: number;
  /** Dynamic client registration (RFC 7591/7592) at /oauth2/register. */
  registration: {
    mode: 'off' | 'loopback' | 'open';
    initialAccessToken: string | undefined;
    perIp: number;
    windowSeconds: number;
  };
  /** Clients named by the URL of their metadata document are accepted. */
  clientIdMetadataDocuments: boolean;
  /** Resource indicators (RFC 8707) a token may be asked for, besides the platform's APIs. */
  resourceServers: string[];
  /** What a client's jwks_uri may reach (it is fetched through the outbound guard). */
  jwksUriPolicy: { httpHosts: string[]; allowPrivate: boolean; timeoutMs: number };
}

function parseAppOrigins(value: string): ClientConfig[] {
  return value
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new ConfigError(`APP_ORIGINS entry must be client_id=origin: ${pair}`);
      // APP_ORIGINS lists the platform's own applications: first-party clients.
      return ClientSchema.parse({
        client_id: pair.slice(0, at),
        origin: pair.slice(at + 1),
        skip_consent: true,
      });
    });
}

export function loadConfig(given: Record<string, string | undefined> = process.env): OAuth2Config {
  const env = settings.readEnv(given);
  const e = EnvSchema.parse(env);
  const clients = e.OAUTH2_CLIENTS ?? (e.APP_ORIGINS ? parseAppOrigins(e.APP_ORIGINS) : DEFAULT_CLIENTS);
  const ids = new Set(clients.map((c) => c.client_id));
  if (ids.size !== clients.length) throw new ConfigError('OAUTH2 client ids must be unique');
  const deviceClients = (e.OAUTH2_DEVICE_CLIENTS ?? DEFAULT_DEVICE_CLIENTS).map((d) => ({
    client_id: d.client_id,
    client_name: d.client_name ?? d.client_id,
    verification_origin: d.verification_origin ?? clients[0]!.origin,
    ...(d.code_ttl_seconds === undefined ? {} : { code_ttl_seconds: d.code_ttl_seconds }),
  }));
  for (const d of deviceClients) {
    if (ids.has(d.client_id)) throw new ConfigError('OAUTH2 client ids must be unique');
    ids.add(d.client_id);
  }
  // A client no operator registered gets tokens for the resource servers only (never the platform's
  // APIs): without one it could get none.
  if (
    (e.OAUTH2_REGISTRATION !== 'off' || e.OAUTH2_CLIENT_ID_METADATA_DOCUMENTS === 'true') &&
    e.OAUTH2_RESOURCE_SERVERS.length === 0
  ) {
    throw new ConfigError(
      'OAUTH2_REGISTRATION and OAUTH2_CLIENT_ID_METADATA_DOCUMENTS need OAUTH2_RESOURCE_SERVERS: the clients they admit get tokens for those resource servers only.',
    );
  }
  const issuer = (e.OAUTH2_PUBLIC_URL ?? localUrl(e.OAUTH2_PUBLIC_PORT)).replace(/\/+$/, '');
  return Object.freeze({
    issuer,
    publicPort: e.OAUTH2_PUBLIC_PORT,
    publicHost: e.OAUTH2_PUBLIC_HOST,
    adminPort: e.OAUTH2_ADMIN_PORT,
    admin: adminAccessFromEnv('OAUTH2', e),
    clients,
    deviceClients,
    device: {
      codeTtl: e.OAUTH2_DEVICE_CODE_TTL,
      pollInterval: e.OAUTH2_DEVICE_POLL_INTERVAL,
      authPerIp: e.OAUTH2_DEVICE_AUTH_PER_IP,
      userCodeAttemptsPerIp: e.OAUTH2_DEVICE_USER_CODE_ATTEMPTS_PER_IP,
      limitWindowSeconds: e.OAUTH2_DEVICE_LIMIT_WINDOW_SECONDS,
    },
    accessTokenAlg: e.OAUTH2_ACCESS_TOKEN_ALG,
    ...settings.common(env),
    ttl: {
      accessToken: e.OAUTH2_ACCESS_TOKEN_TTL,
      idToken: e.OAUTH2_ID_TOKEN_TTL,
      refreshToken: e.OAUTH2_REFRESH_TOKEN_TTL,
      authorizationCode: e.OAUTH2_AUTH_CODE_TTL,
      interaction: e.OAUTH2_INTERACTION_TTL,
      session: e.OAUTH2_SESSION_TTL,
      grant: e.OAUTH2_GRANT_TTL,
      m365Grant: e.OAUTH2_M365_GRANT_TTL,
    },
    idleGrantRetentionHours: e.OAUTH2_IDLE_GRANT_RETENTION_HOURS,
    usersAdminUrl: e.USERS_ADMIN_URL?.replace(/\/+$/, ''),
    usersAdminKey: callerKey(e.USERS_ADMIN_KEY),
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    refreshGraceSeconds: e.OAUTH2_REFRESH_GRACE_SECONDS,
    keyRotateEverySeconds: e.OAUTH2_KEY_ROTATE_EVERY,
    keysSecrets: keysSecrets(e.OAUTH2_KEYS_SECRET, env.NODE_ENV),
    keyReloadSeconds: e.OAUTH2_KEY_RELOAD_SECONDS,
    trustProxy: e.TRUST_PROXY,
    migrateAtStart: e.OAUTH2_MIGRATE_AT_START,
    bodyLimitBytes: e.OAUTH2_BODY_LIMIT_BYTES,
    logLevel: e.LOG_LEVEL,
    clientSecretGraceSeconds: e.OAUTH2_CLIENT_SECRET_GRACE_SECONDS,
    registration: {
      mode: e.OAUTH2_REGISTRATION,
      initialAccessToken: e.OAUTH2_REGISTRATION_INITIAL_ACCESS_TOKEN,
      perIp: e.OAUTH2_REGISTRATION_PER_IP,
      windowSeconds: e.OAUTH2_REGISTRATION_WINDOW_SECONDS,
    },
    clientIdMetadataDocuments: e.OAUTH2_CLIENT_ID_METADATA_DOCUMENTS === 'true',
    resourceServers: e.OAUTH2_RESOURCE_SERVERS,
    jwksUriPolicy: {
      httpHosts: e.OAUTH2_JWKS_URI_HTTP_HOSTS,
      allowPrivate: e.OAUTH2_JWKS_URI_ALLOW_PRIVATE === 'true',
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    },
  });
}

/** The app URLs derived from a client's origin. */
export function appUrls(client: ClientConfig) {
  return {
    redirectUri: `${client.origin}/account/callback`,
    postLogoutRedirectUri: `${client.origin}/account/login`,
    login: `${client.origin}/account/login`,
    consent: `${client.origin}/account/consent`,
    logout: `${client.origin}/account/logout`,
  };
}

/** The key row's encryption keys: required in production (the private signing keys are sealed with them). */
function keysSecrets(keys: readonly string[] | undefined, nodeEnv: string | undefined) {
  if (!keys && nodeEnv === 'production')
    throw new ConfigError(
      'OAUTH2_KEYS_SECRET is required in production (at least 32 characters): it encrypts the signing keys at rest.',
    );
  return keys;
}
