import { z } from 'zod';
import {
  ConfigError,
  appOriginsSchema,
  applyRenames,
  bindHostSchema,
  logLevelSchema,
  microsoftTokenEnvSchema,
  portSchema,
  serviceDatabaseSchema,
  settingNames,
  settingsFromFiles,
  trustProxySchema,
  upstreamTimeoutSchema,
  type PartSettings,
  type SettingRenames,
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
import { overloadConfig, overloadEnvSchema, type OverloadConfig } from '@acme/service-kit/overload';
import { managementConfig, managementEnvSchema, type ManagementConfig } from '@acme/service-kit/management';
import { migrateAtStartSchema } from '@acme/service-kit/migrations';

const configSchema = z.object({
  AGENT_PUBLIC_PORT: portSchema(4466).describe('Port of the public API.'),
  AGENT_ADMIN_PORT: portSchema(4467).describe('Port of the admin API (lists the recorded requests).'),
  AGENT_ADMIN_HOST: adminHostSchema.describe(
    'Interface the admin API binds (loopback by default; elsewhere AGENT_ADMIN_KEY is required).',
  ),
  AGENT_ADMIN_KEY: adminKeySchema
    .describe('Bearer key the admin API requires (at least 32 characters); required off loopback.')
    .meta({ secret: true }),
  AGENT_ADMIN_ALLOWED_HOSTS: hostListSchema.describe(
    'Host names the admin API answers besides loopback, comma-separated.',
  ),
  AGENT_PUBLIC_HOST: bindHostSchema.describe('Interface the public API binds (`0.0.0.0` in a container).'),
  APP_ORIGINS: appOriginsSchema,
  AGENT_RATE_LIMIT: z.coerce.number().int().min(1).default(20).describe('Requests per caller per window.'),
  AGENT_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe('The window of AGENT_RATE_LIMIT (seconds).'),
  TRUST_PROXY: trustProxySchema,
  // The Microsoft identity platform and our app registration: the same settings as the user service's.
  ...microsoftTokenEnvSchema.shape,
  UPSTREAM_TIMEOUT_MS: upstreamTimeoutSchema,
  LOG_LEVEL: logLevelSchema,
  AGENT_MIGRATE_AT_START: migrateAtStartSchema,
  AGENT_PUBLIC_URL: z
    .url()
    .optional()
    .describe(
      'The public base URL of this service (default `http://localhost:<AGENT_PUBLIC_PORT>`); its MCP endpoint `<AGENT_PUBLIC_URL>/mcp` is the audience its tokens must carry.',
    ),
  OAUTH2_PUBLIC_URL: z
    .url()
    .default('http://localhost:4444')
    .describe('The authorization server (issuer) an MCP client is sent to.'),
  OAUTH2_ADMIN_URL: z
    .url()
    .default('http://localhost:4445')
    .describe("The authorization server's admin API, which checks the MCP endpoint's access tokens."),
  OAUTH2_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the authorization server's admin API, when it requires one.")
    .meta({ secret: true }),
});

/** Names this service's settings had before they were made one per setting across services. */
const RENAMES: SettingRenames = {
  AGENT_PUBLIC_PORT: ['AGENT_PORT'],
  AGENT_PUBLIC_HOST: ['AGENT_HOST'],
  UPSTREAM_TIMEOUT_MS: ['AGENT_UPSTREAM_TIMEOUT_MS'],
};

/** The variable naming the embedded database's directory (main.ts). */
export const DATA_DIR_VARIABLE = 'AGENT_DATA_DIR';

/** Every setting of the agent service's process, for the generated reference. */
export const settings: PartSettings = {
  part: 'agent',
  title: 'Agent service',
  schemas: [
    configSchema,
    serviceDatabaseSchema(DATA_DIR_VARIABLE),
    overloadEnvSchema,
    managementEnvSchema('AGENT', 9004),
  ],
  renames: RENAMES,
};

export interface Config {
  port: number;
  /** Operator-only API (lists the recorded requests); never exposed beyond the operator's network. */
  adminPort: number;
  /** Who may reach the admin API (loopback by default; a key is required elsewhere). */
  admin: AdminAccess;
  host: string;
  appOrigins: string[];
  rateLimit: number;
  rateWindowSeconds: number;
  trustProxy: TrustProxy;
  /** Load shedding on event-loop lag (OVERLOAD_*; service-kit overload.ts). */
  overload: OverloadConfig;
  /** The management listener (`<PREFIX>_MANAGEMENT_PORT`/`_HOST`; service-kit management.ts). */
  management: ManagementConfig;
  /** Microsoft tokens are verified as the user service verifies them (keys of the token's tenant). */
  m365: { authorityUrl: string; clientId: string; appIdUri?: string };
  upstreamTimeoutMs: number;
  logLevel: string;
  /** Apply pending migrations at start (`AGENT_MIGRATE_AT_START`, default true); false: refuse to start while any is pending. */
  migrateAtStart: boolean;
  /** The MCP endpoint: its URL (the audience its tokens carry) and the authorization server it trusts. */
  mcp: { resource: string; issuer: string; oauth2AdminUrl: string; oauth2AdminKey: string | undefined };
}

/** Parses the agent service configuration once, at start-up. Defaults are the development defaults. */
export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = settingsFromFiles(applyRenames('agent', given, RENAMES), settingNames(configSchema));
  const parsed = configSchema.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(`Invalid agent service configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  return {
    port: c.AGENT_PUBLIC_PORT,
    adminPort: c.AGENT_ADMIN_PORT,
    admin: adminAccess('AGENT', {
      host: c.AGENT_ADMIN_HOST,
      keys: c.AGENT_ADMIN_KEY,
      allowedHosts: c.AGENT_ADMIN_ALLOWED_HOSTS,
    }),
    host: c.AGENT_PUBLIC_HOST,
    appOrigins: c.APP_ORIGINS,
    rateLimit: c.AGENT_RATE_LIMIT,
    rateWindowSeconds: c.AGENT_RATE_WINDOW_SECONDS,
    trustProxy: c.TRUST_PROXY,
    overload: overloadConfig(env),
    management: managementConfig('AGENT', 9004, env),
    m365: {
      authorityUrl: c.M365_AUTHORITY_URL.replace(/\/+$/, ''),
      clientId: c.M365_CLIENT_ID.toLowerCase(),
      ...(c.M365_APP_ID_URI ? { appIdUri: c.M365_APP_ID_URI } : {}),
    },
    upstreamTimeoutMs: c.UPSTREAM_TIMEOUT_MS,
    logLevel: c.LOG_LEVEL,
    migrateAtStart: c.AGENT_MIGRATE_AT_START,
    mcp: {
      resource: `${(c.AGENT_PUBLIC_URL ?? `http://localhost:${c.AGENT_PUBLIC_PORT}`).replace(/\/+$/, '')}/mcp`,
      issuer: c.OAUTH2_PUBLIC_URL.replace(/\/+$/, ''),
      oauth2AdminUrl: c.OAUTH2_ADMIN_URL.replace(/\/+$/, ''),
      oauth2AdminKey: callerKey(c.OAUTH2_ADMIN_KEY),
    },
  };
}
