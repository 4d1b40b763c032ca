import { z } from 'zod';

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
  AGENT_PORT: z.coerce.number().int().min(0).max(65535).default(4466),
  AGENT_HOST: z.string().default('127.0.0.1'),
  APP_ORIGINS: origins,
  AGENT_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  AGENT_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  appOrigins: string[];
  rateLimit: number;
  rateWindowSeconds: number;
  trustProxy: boolean;
  logLevel: string;
}

/** Parses the agent service configuration once, at start-up. Defaults are the development defaults. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success)
    throw new Error(`Invalid agent service configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  return {
    port: c.AGENT_PORT,
    host: c.AGENT_HOST,
    appOrigins: c.APP_ORIGINS,
    rateLimit: c.AGENT_RATE_LIMIT,
    rateWindowSeconds: c.AGENT_RATE_WINDOW_SECONDS,
    trustProxy: c.TRUST_PROXY,
    logLevel: c.LOG_LEVEL,
  };
}
