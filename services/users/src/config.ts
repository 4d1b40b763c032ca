import { z } from 'zod';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/**
 * Comma-separated app origins. Entries may be bare origins (`http://localhost:4000`) or the
 * authorization server's `client_id=origin` form, so one APP_ORIGINS can serve every service.
 */
const origins = z
  .string()
  .default('http://localhost:4000,http://localhost:4001')
  .transform((value, ctx) => {
    const result: string[] = [];
    for (const raw of value.split(',')) {
      const entry = raw.trim().replace(/^[A-Za-z0-9_-]+=/, '');
      if (entry.length === 0) continue;
      try {
        result.push(new URL(entry).origin);
      } catch {
        ctx.addIssue({ code: 'custom', message: `not an origin: ${entry}` });
        return z.NEVER;
      }
    }
    return result;
  });

const configSchema = z.object({
  USERS_PUBLIC_PORT: port(4455),
  USERS_ADMIN_PORT: port(4456),
  USERS_HOST: z.string().default('127.0.0.1'),
  IDENTITY_ADMIN_URL: z.url().default('http://localhost:4434'),
  OAUTH2_ADMIN_URL: z.url().default('http://localhost:4445'),
  APP_ORIGINS: origins,
  MFA_GRACE_DAYS: z.coerce.number().int().min(0).max(365).default(14),
  LOGIN_CONFIG_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  LOGIN_CONFIG_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
  upstreamTimeoutMs: number;
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
    upstreamTimeoutMs: c.UPSTREAM_TIMEOUT_MS,
    trustProxy: c.TRUST_PROXY,
    logLevel: c.LOG_LEVEL,
  };
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
