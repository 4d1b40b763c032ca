import { z } from 'zod';
import {
  ConfigError,
  appOriginsSchema,
  bindHostSchema,
  logLevelSchema,
  microsoftTokenEnvSchema,
  portSchema,
  trustProxySchema,
  upstreamTimeoutSchema,
} from '@acme/service-kit/config';
import type { TrustProxy } from '@acme/service-kit/proxy-trust';
import {
  adminAccessFromEnv,
  adminListenerEnvShape,
  adminKeySchema,
  callerKey,
  type AdminAccess,
} from '@acme/service-kit/admin-access';
import { serviceSettings, type CommonSettings } from '@acme/service-kit/service-config';
import { migrateAtStartSchema } from '@acme/service-kit/migrations';
import { localUrl, systemShape, USUAL_PORTS } from '@acme/system-shape';

/** The system as `npm start` shapes it: where the defaults below point. */
const LOCAL = systemShape();

const configSchema = z.object({
  AGENT_PUBLIC_PORT: portSchema(USUAL_PORTS.agent).describe('Port of the public API.'),
  AGENT_ADMIN_PORT: portSchema(USUAL_PORTS.agentAdmin).describe(
    'Port of the admin API (lists the recorded requests).',
  ),
  ...adminListenerEnvShape('AGENT'),
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
    .default(LOCAL.listeners.oauth2Public)
    .describe('The authorization server (issuer) an MCP client is sent to.'),
  OAUTH2_ADMIN_URL: z
    .url()
    .default(LOCAL.listeners.oauth2Admin)
    .describe("The authorization server's admin API, which checks the MCP endpoint's access tokens."),
  OAUTH2_ADMIN_KEY: adminKeySchema
    .describe("Bearer key sent to the authorization server's admin API, when it requires one.")
    .meta({ secret: true }),
});

/** Every setting of the agent service's process (for the generated reference), and how they are read. */
export const settings = serviceSettings({
  part: 'agent',
  title: 'Agent service',
  prefix: 'AGENT',
  managementPort: USUAL_PORTS.agentManagement,
  schema: configSchema,
  // The names these settings had before they were made one per setting across services.
  renames: {
    AGENT_PUBLIC_PORT: ['AGENT_PORT'],
    AGENT_PUBLIC_HOST: ['AGENT_HOST'],
    UPSTREAM_TIMEOUT_MS: ['AGENT_UPSTREAM_TIMEOUT_MS'],
  },
});

export interface Config extends CommonSettings {
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
  const env = settings.readEnv(given);
  const parsed = configSchema.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(`Invalid agent service configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  return {
    port: c.AGENT_PUBLIC_PORT,
    adminPort: c.AGENT_ADMIN_PORT,
    admin: adminAccessFromEnv('AGENT', c),
    host: c.AGENT_PUBLIC_HOST,
    appOrigins: c.APP_ORIGINS,
    rateLimit: c.AGENT_RATE_LIMIT,
    rateWindowSeconds: c.AGENT_RATE_WINDOW_SECONDS,
    trustProxy: c.TRUST_PROXY,
    ...settings.common(env),
    m365: {
      authorityUrl: c.M365_AUTHORITY_URL.replace(/\/+$/, ''),
      clientId: c.M365_CLIENT_ID.toLowerCase(),
      ...(c.M365_APP_ID_URI ? { appIdUri: c.M365_APP_ID_URI } : {}),
    },
    upstreamTimeoutMs: c.UPSTREAM_TIMEOUT_MS,
    logLevel: c.LOG_LEVEL,
    migrateAtStart: c.AGENT_MIGRATE_AT_START,
    mcp: {
      resource: `${(c.AGENT_PUBLIC_URL ?? localUrl(c.AGENT_PUBLIC_PORT)).replace(/\/+$/, '')}/mcp`,
      issuer: c.OAUTH2_PUBLIC_URL.replace(/\/+$/, ''),
      oauth2AdminUrl: c.OAUTH2_ADMIN_URL.replace(/\/+$/, ''),
      oauth2AdminKey: callerKey(c.OAUTH2_ADMIN_KEY),
    },
  };
}
