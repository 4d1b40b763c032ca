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

/** A bind address with its development default (loopback). */
export const bindHostSchema = z.string().trim().min(1).default('127.0.0.1');

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
  })
  .describe(
    "The applications' browser-facing origins, comma-separated (`https://platform.example.com`, or `platform=https://…` as the authorization server takes them): where browsers may call from.",
  );

/** `TRUST_PROXY` and the services' own variants: false, a hop count or proxy addresses (see proxy-trust.ts). */
export { trustProxySchema, type TrustProxy } from './proxy-trust.ts';

/** `UPSTREAM_TIMEOUT_MS`: the time-out of a call to another service of the platform. */
export const upstreamTimeoutSchema = z.coerce
  .number()
  .int()
  .min(100)
  .max(60_000)
  .default(5000)
  .describe('Time-out of each call to another service of the platform (ms).');

/**
 * A retention period in whole days or hours: at least 1 (0, a negative or a malformed value stops
 * the process, naming the setting), with a default.
 */
export const retentionSchema = (def: number, max: number, description: string) =>
  z.coerce.number().int().min(1).max(max).default(def).describe(description);

/** The retention job of a service's security events (identity and user service). */
export const securityEventsEnvSchema = z.object({
  SECURITY_EVENTS_RETENTION_DAYS: retentionSchema(
    400,
    3650,
    'Days security events are kept before the retention job deletes them.',
  ),
  SECURITY_EVENTS_CLEANUP_BATCH: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1000)
    .describe(
      'Security events deleted per statement by the retention job, so writers never wait behind one long delete.',
    ),
});

/** How long spent or expired one-time records are kept before the cleanup deletes them (identity and user service). */
export const spentRecordsEnvSchema = z.object({
  SPENT_RECORDS_RETENTION_HOURS: retentionSchema(
    24,
    24 * 90,
    "Hours a spent or expired one-time record (self-service flow, sign-in state, passkey challenge, SAML request, attempt window; the console's SSO test sign-ins and Git link states) is kept after it ended, for support look-ups, before the cleanup deletes it.",
  ),
});

/** The Microsoft identity platform and our app registration, as every verifier of its tokens reads them. */
export const microsoftTokenEnvSchema = z.object({
  M365_AUTHORITY_URL: z
    .url()
    .default('http://localhost:4510')
    .describe("Microsoft Entra's base URL (`https://login.microsoftonline.com`); tenant paths go below it."),
  M365_CLIENT_ID: z
    .uuid()
    .default('6f2d4c1a-8b3e-4f5d-9a7c-1e2b3c4d5e6f')
    .describe('Our Microsoft app registration: the audience of ID tokens and Teams tokens.'),
  M365_APP_ID_URI: z
    .string()
    .min(1)
    .optional()
    .describe('Also accepted as a token audience (Teams SSO tokens of v1 apps).'),
});

/** `LOG_LEVEL`: a pino level, `info` by default. */
export const logLevelSchema = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info')
  .describe('The least severe log level written (JSON lines on stdout).');

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
    .describe(
      'PostgreSQL connection URL (`postgres://user:password@host:5432/db`); unset: the embedded PGlite database.',
    )
    .meta({ secret: true }),
  DATABASE_POOL_MAX: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(1000).default(10))
    .describe(
      "Most connections this process opens to PostgreSQL; every instance's pool together must fit under the server's max_connections.",
    ),
  DATABASE_PREPARED_STATEMENTS: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(10_000).default(200))
    .describe(
      'Most named prepared statements kept per connection; 0 turns them off (behind a pooler in transaction mode).',
    ),
});

/** The database settings of a service's entry point: the shared ones and its own PGlite directory. */
export function serviceDatabaseSchema(dataDirVariable: string) {
  return databaseEnvSchema.extend({
    [dataDirVariable]: z
      .preprocess(unsetIfEmpty, z.string().optional())
      .describe(
        'Without DATABASE_URL: directory of the embedded PGlite database (kept across restarts); unset: in memory.',
      ),
  });
}

/** The database an entry point opens: PostgreSQL, else PGlite in its directory, else in memory. */
export function serviceDatabaseFromEnv(
  dataDirVariable: string,
  env: Record<string, string | undefined> = process.env,
): { url: string | undefined; dataDir: string | undefined; poolMax: number; preparedPerConnection: number } {
  const { url, ...pool } = databaseFromEnv(env);
  const dataDir = url ? undefined : env[dataDirVariable] || undefined;
  return { url, dataDir, ...pool };
}

/** The database settings of a service's process, from its environment (throws on a bad value). */
export function databaseFromEnv(env: Record<string, string | undefined>): {
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
 * Old names of settings, kept for one release: new name → the names it had before. Each part's
 * config.ts declares its own, and the generated reference (docs/configuration.md) lists them.
 */
export type SettingRenames = Readonly<Record<string, readonly string[]>>;

/** Where the warning about an old name goes: one JSON line on stderr, like every start-up line. */
export type RenameWarning = (line: string) => void;

const stderrLine: RenameWarning = (line) => process.stderr.write(`${line}\n`);

/**
 * The environment with every old setting name read as its new one. A value under an old name is
 * used when the new name is unset (the new name wins when both are set), and each old name in use
 * is reported: one structured warning line naming the old and the new name, never the value (a
 * part reads its configuration once, at start, so this is one line per old name per start).
 */
export function applyRenames(
  part: string,
  env: Record<string, string | undefined>,
  renames: SettingRenames,
  warn: RenameWarning = stderrLine,
): Record<string, string | undefined> {
  const out = { ...env };
  for (const [name, oldNames] of Object.entries(renames)) {
    for (const old of oldNames) {
      const value = env[old];
      if (value === undefined || value === '') continue;
      if (out[name] === undefined || out[name] === '') out[name] = value;
      warn(
        JSON.stringify({
          level: 'warn',
          name: part,
          msg: `setting ${old} is deprecated: use ${name} (the old name is read for one more release)`,
          setting: old,
          replacement: name,
        }),
      );
    }
  }
  return out;
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

/** Settings of the Node.js process itself, read wherever a part behaves differently in production. */
export const processEnvSchema = z.object({
  NODE_ENV: z
    .string()
    .optional()
    .describe(
      '`production` refuses development defaults (secrets, keys, stand-ins) at start; anything else allows them.',
    ),
});

/**
 * `UV_THREADPOOL_SIZE`: libuv's thread pool, sized before anything runs by the preload
 * packages/service-kit/threadpool.mjs (the entry points are started with it).
 */
export const threadPoolEnvSchema = z.object({
  UV_THREADPOOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024)
    .optional()
    .describe(
      "Threads of libuv's pool (password hashing, file reads, DNS); default: IDENTITY_HASH_CONCURRENCY + 4, set by the thread-pool preload.",
    ),
});

/** Whether the thread-pool preload (or the operator) sized libuv's pool before start. */
export function threadPoolSized(env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(env.UV_THREADPOOL_SIZE);
}

/** Every setting of one part, for the generated reference (docs/configuration.md, `.env.example`). */
export interface PartSettings {
  /** The part's name, as its log lines and `deploy/env/<part>.env.example` name it. */
  part: string;
  title: string;
  /** Its settings' schemas; each field is one variable, with `.describe()` and, for a secret, `.meta({ secret: true })`. */
  schemas: readonly z.ZodObject[];
  renames: SettingRenames;
}

/** The settings of an object schema, each readable from `X_FILE` (see settingsFromFiles). */
export function settingNames(schema: { shape: Record<string, unknown> }): string[] {
  return Object.keys(schema.shape);
}
