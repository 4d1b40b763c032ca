import { readFileSync } from 'node:fs';
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
  DATABASE_URL: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe('PostgreSQL connection URL, with its password (unset: the embedded PGlite)')
    .meta({ secret: true }),
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
  const parsed = databaseEnvSchema.safeParse(settingsFromFiles(env, settingNames(databaseEnvSchema)));
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

/**
 * A secret setting that takes a comma-separated list (as Kratos's `secrets.*`): the first entry signs
 * or encrypts, the others are still accepted or decrypted, so a secret is rotated in three steps
 * without a failed request (add the new one second, make it first, drop the old one). Refused: an
 * empty entry, the same entry twice, an entry shorter than `min`, or one that fails `entry`. The
 * messages never contain the value; zod names the setting in the issue's path.
 */
export interface SecretListOptions {
  /** What the secret does (the generated configuration reference reads it). */
  description: string;
  /** The fewest characters an entry may have. */
  min: number;
  /** A development default (refusing it in production is the service's rule). */
  fallback?: string;
  /** Turns an entry into its usable form first, e.g. `\\n` escapes into line breaks. */
  normalise?: (entry: string) => string;
  /** A shape every entry must have, with the message naming it (not the value). */
  entry?: { pattern: RegExp; message: string };
}

const splitSecretList = (o: SecretListOptions) => (value: string, ctx: z.RefinementCtx) => {
  const entries = value.split(',').map((e) => (o.normalise ?? ((v: string) => v))(e.trim()));
  const problem = (message: string) => {
    ctx.addIssue({ code: 'custom', message, input: undefined });
    return z.NEVER;
  };
  if (entries.some((e) => e.length === 0)) return problem('an entry of the list is empty (a stray comma?)');
  if (new Set(entries).size !== entries.length) return problem('the same entry appears twice in the list');
  if (o.entry && entries.some((e) => !o.entry!.pattern.test(e))) return problem(o.entry.message);
  if (entries.some((e) => e.length < o.min))
    return problem(`every entry of the list needs at least ${o.min} characters`);
  return Object.freeze(entries) as readonly string[];
};

/** A required secret list (or one with a development `fallback`): the parsed value is the entries, first first. */
export function secretListSchema(o: SecretListOptions) {
  const base = o.fallback === undefined ? z.string() : z.string().default(o.fallback);
  return base.transform(splitSecretList(o)).describe(o.description).meta({ secret: true });
}

/** An optional secret list: undefined when unset. */
export function optionalSecretListSchema(o: Omit<SecretListOptions, 'fallback'>) {
  return z.string().transform(splitSecretList(o)).optional().describe(o.description).meta({ secret: true });
}

/** Reads a mounted file's text; the path is named when it cannot be read. */
export type ReadSettingFile = (path: string) => string;
const readSettingFile: ReadSettingFile = (path) => readFileSync(path, 'utf8');

/**
 * `X_FILE` for every setting `X` in `names`: the value is read from that file (a Kubernetes Secret
 * mounted as files), without its trailing line break, before the settings are parsed. Setting both
 * `X` and `X_FILE` is refused, and so is a file that is missing or unreadable (its path is named;
 * its content never is). Answers a new environment; `env` is left as it is.
 */
export function settingsFromFiles(
  env: Record<string, string | undefined>,
  names: Iterable<string>,
  read: ReadSettingFile = readSettingFile,
): Record<string, string | undefined> {
  const out = { ...env };
  for (const name of names) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path === '') continue;
    if (env[name] !== undefined && env[name] !== '')
      throw new ConfigError(`${name} and ${name}_FILE are both set: keep one of them.`);
    let text: string;
    try {
      text = read(path);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new ConfigError(
        `${name}_FILE: cannot read ${path}${typeof code === 'string' ? ` (${code})` : ''}.`,
      );
    }
    out[name] = text.replace(/\r?\n$/, '');
    delete out[`${name}_FILE`];
  }
  return out;
}

/** The settings of an object schema, each readable from `X_FILE` (see settingsFromFiles). */
export function settingNames(schema: { shape: Record<string, unknown> }): string[] {
  return Object.keys(schema.shape);
}
