import { z } from 'zod';

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

/** `TRUST_PROXY`: the strings `true` / `false` (default `false`) as a boolean. */
export const trustProxySchema = z
  .enum(['true', 'false'])
  .default('false')
  .transform((value) => value === 'true');

/** `LOG_LEVEL`: a pino level, `info` by default. */
export const logLevelSchema = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');
