import { z } from 'zod';

/**
 * A setting that is missing or malformed. The process stops at start-up with one line naming the
 * setting, without a stack trace (crash.ts), and exit status 78 (EX_CONFIG).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A listen port with its development default. */
export const portSchema = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/**
 * Comma-separated app origins. Entries may be bare origins (`http://localhost:4000`) or the
 * authorization server's `client_id=origin` form, so one APP_ORIGINS can serve every service.
 */
export const appOriginsSchema = z
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

/** `TRUST_PROXY` and the services' own variants: false, a hop count or proxy addresses (see proxy-trust.ts). */
export { trustProxySchema, type TrustProxy } from './proxy-trust.ts';

/** `LOG_LEVEL`: a pino level, `info` by default. */
export const logLevelSchema = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);

/**
 * `DATABASE_URL` (a PostgreSQL server; unset or empty: the embedded PGlite), `DATABASE_POOL_MAX`
 * (most connections each process opens to it, 10 by default: size it so that every instance's pool
 * fits under the server's max_connections) and `DATABASE_PREPARED_STATEMENTS` (most named statements
 * per connection, 200 by default; 0 turns them off, e.g. behind a connection pooler in transaction
 * mode that does not track them).
 */
export const databaseEnvSchema = z.object({
  DATABASE_URL: z.preprocess(unsetIfEmpty, z.string().optional()),
  DATABASE_POOL_MAX: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(1000).default(10)),
  DATABASE_PREPARED_STATEMENTS: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(0).max(10_000).default(200),
  ),
});

/** The database settings of a service's process, from its environment (throws on a bad value). */
export function databaseFromEnv(env: NodeJS.ProcessEnv): {
  url: string | undefined;
  poolMax: number;
  preparedPerConnection: number;
} {
  const parsed = databaseEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      `Invalid database settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return {
    url: parsed.data.DATABASE_URL,
    poolMax: parsed.data.DATABASE_POOL_MAX,
    preparedPerConnection: parsed.data.DATABASE_PREPARED_STATEMENTS,
  };
}
