import { z } from 'zod';
import {
  ConfigError,
  appOriginsSchema,
  logLevelSchema,
  portSchema,
  settingNames,
  settingsFromFiles,
  trustProxySchema,
} from '@acme/service-kit/config';
import type { TrustProxy } from '@acme/service-kit/proxy-trust';
import {
  adminAccess,
  adminHostSchema,
  adminKeySchema,
  hostListSchema,
  type AdminAccess,
} from '@acme/service-kit/admin-access';
import { overloadConfig, type OverloadConfig } from '@acme/service-kit/overload';
import { migrateAtStartSchema } from '@acme/service-kit/migrations';

const configSchema = z.object({
  AGENT_PORT: portSchema(4466),
  AGENT_ADMIN_PORT: portSchema(4467),
  AGENT_ADMIN_HOST: adminHostSchema,
  AGENT_ADMIN_KEY: adminKeySchema,
  AGENT_ADMIN_ALLOWED_HOSTS: hostListSchema,
  AGENT_HOST: z.string().default('127.0.0.1'),
  APP_ORIGINS: appOriginsSchema,
  AGENT_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  AGENT_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  TRUST_PROXY: trustProxySchema,
  /** The Microsoft identity platform and our app registration: the same settings as the user service's. */
  M365_AUTHORITY_URL: z.url().default('http://localhost:4510'),
  M365_CLIENT_ID: z.uuid().default('6f2d4c1a-8b3e-4f5d-9a7c-1e2b3c4d5e6f'),
  M365_APP_ID_URI: z.string().min(1).optional(),
  AGENT_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  LOG_LEVEL: logLevelSchema,
  AGENT_MIGRATE_AT_START: migrateAtStartSchema,
});

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
  /** Microsoft tokens are verified as the user service verifies them (keys of the token's tenant). */
  m365: { authorityUrl: string; clientId: string; appIdUri?: string };
  upstreamTimeoutMs: number;
  logLevel: string;
  /** Apply pending migrations at start (`AGENT_MIGRATE_AT_START`, default true); false: refuse to start while any is pending. */
  migrateAtStart: boolean;
}

/** Parses the agent service configuration once, at start-up. Defaults are the development defaults. */
export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = settingsFromFiles(given, settingNames(configSchema));
  const parsed = configSchema.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(`Invalid agent service configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  return {
    port: c.AGENT_PORT,
    adminPort: c.AGENT_ADMIN_PORT,
    admin: adminAccess('AGENT', {
      host: c.AGENT_ADMIN_HOST,
      keys: c.AGENT_ADMIN_KEY,
      allowedHosts: c.AGENT_ADMIN_ALLOWED_HOSTS,
    }),
    host: c.AGENT_HOST,
    appOrigins: c.APP_ORIGINS,
    rateLimit: c.AGENT_RATE_LIMIT,
    rateWindowSeconds: c.AGENT_RATE_WINDOW_SECONDS,
    trustProxy: c.TRUST_PROXY,
    overload: overloadConfig(env),
    m365: {
      authorityUrl: c.M365_AUTHORITY_URL.replace(/\/+$/, ''),
      clientId: c.M365_CLIENT_ID.toLowerCase(),
      ...(c.M365_APP_ID_URI ? { appIdUri: c.M365_APP_ID_URI } : {}),
    },
    upstreamTimeoutMs: c.AGENT_UPSTREAM_TIMEOUT_MS,
    logLevel: c.LOG_LEVEL,
    migrateAtStart: c.AGENT_MIGRATE_AT_START,
  };
}
