// The settings of the development launchers, `npm start` (start.ts) and `npm run start:cluster`
// (start-cluster.ts), read once when they start. The services they start get their own settings
// from packages/cluster/src/service-env.ts. The reference lists these settings too (scripts/configuration.ts).
import { z } from 'zod';
import {
  ConfigError,
  databaseEnvSchema,
  processEnvSchema,
  threadPoolEnvSchema,
  type PartSettings,
} from '@acme/service-kit/config';

const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('warn')
  .describe("Every part's log level (`warn` keeps the terminal readable).");

const adminKey = z
  .string()
  .min(32)
  .optional()
  .describe(
    'One bearer key every admin API requires and every caller sends (default: none in one process, a fresh one per run in the cluster).',
  )
  .meta({ secret: true });

const offset = (name: string) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(50_000)
    .default(0)
    .describe(
      `Added to every port, to run ${name} beside another copy; the URLs every part is given move with it.`,
    );

const startSchema = z.object({
  START_DATABASE: z
    .enum(['memory', 'disk'])
    .default('disk')
    .describe(
      '`memory`: a fresh in-memory PGlite; `disk`: PGlite in .data/pglite (ignored with DATABASE_URL).',
    ),
  START_PORT_OFFSET: offset('npm start'),
  START_TEST_LIMITS: z
    .enum(['0', '1'])
    .default('0')
    .describe('1: the raised per-IP limits the browser journeys need (every request comes from 127.0.0.1).'),
  START_EXTRA_ENV: z
    .string()
    .optional()
    .transform((json, ctx): Record<string, string> => {
      if (!json) return {};
      try {
        const parsed: unknown = JSON.parse(json);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
          return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of strings' });
      return z.NEVER;
    })
    .describe("More settings for every service, as a JSON object of strings (the journeys' system)."),
  LOG_LEVEL: logLevel,
  ADMIN_KEY: adminKey,
});

const clusterSchema = z.object({
  CLUSTER_PORT_OFFSET: offset('the cluster'),
  LOG_LEVEL: logLevel,
  ADMIN_KEY: adminKey,
  SERVICE_V8_FLAGS: z
    .string()
    .default('--max-semi-space-size=2')
    .describe(
      "V8 flags of every service process (heap sizing); empty for V8's defaults. Also read by docker/entrypoint.sh.",
    ),
});

/** The launchers' settings, for the generated reference. */
export const launcherSettings: PartSettings[] = [
  {
    part: 'start',
    title: '`npm start` (every part in one process, for development)',
    schemas: [startSchema, databaseEnvSchema, processEnvSchema, threadPoolEnvSchema],
    renames: {},
  },
  {
    part: 'start-cluster',
    title: '`npm run start:cluster` (two processes of every part behind nginx, for development)',
    schemas: [clusterSchema, processEnvSchema],
    renames: {},
  },
];

function parse<T extends z.ZodObject>(
  what: string,
  schema: T,
  env: Record<string, string | undefined>,
): z.output<T> {
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(set);
  if (!parsed.success)
    throw new ConfigError(`Invalid ${what} configuration: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** `npm start`'s settings. */
export function loadStartConfig(env: Record<string, string | undefined> = process.env) {
  return parse('npm start', startSchema, env);
}

/** `npm run start:cluster`'s settings. */
export function loadClusterConfig(env: Record<string, string | undefined> = process.env) {
  return parse('start:cluster', clusterSchema, env);
}
