import { parseArgs } from 'node:util';
import { adminAuthHeaders, adminKeySchema, callerKey } from '@acme/service-kit/admin-access';
import { settingsFromFiles } from '@acme/service-kit/config';

/** What the admin command line works with: the environment and its two output streams. */
export interface CliIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
}

/** A wrong command line: the runner prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

/** The admin command line's options that take a value (all read as text, parsed by each command). */
const VALUE_OPTIONS = [
  'name',
  'domains',
  'products',
  'subscription',
  'sso-provider',
  'id',
  'org',
  'email',
  'first',
  'last',
  'role',
  'password',
  'scope-groups',
  'format',
  'as',
  'limit',
  'm365-tenants',
  'issuer',
  'client-id',
  'kid',
  'client-secret',
  'provider',
  'scopes',
  'jit',
  'enforce',
  'user',
  'protocol',
  'url',
  'events',
  'metadata-url',
  'metadata-file',
  'file',
  'grant-types',
  'redirect-uris',
  'post-logout-redirect-uris',
  'auth-method',
  'owner',
  'page-size',
  'page-token',
  'allow-idp-initiated',
  'attr-email',
  'attr-first-name',
  'attr-last-name',
  'attr-groups',
] as const;
/** Its switches (present or not). */
const SWITCHES = ['m365', 'on', 'off', 'show', 'git-user', 'clear', 'userinfo', 'skip-consent'] as const;

type Options = { [K in (typeof VALUE_OPTIONS)[number]]: { type: 'string' } } & {
  [K in (typeof SWITCHES)[number]]: { type: 'boolean' };
} & { help: { type: 'boolean'; short: 'h' } };

export const options = {
  ...Object.fromEntries(VALUE_OPTIONS.map((name) => [name, { type: 'string' }])),
  ...Object.fromEntries(SWITCHES.map((name) => [name, { type: 'boolean' }])),
  help: { type: 'boolean', short: 'h' },
} as Options;

export type Values = ReturnType<
  typeof parseArgs<{ options: typeof options; allowPositionals: true }>
>['values'];

/** `a, b,c` → `['a', 'b', 'c']`; an option left out stays undefined. */
export const list = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);

/** The value of a required option, or a usage error naming it. */
export function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

/** A required option's value ready for a URL path. */
export const pathPart = (values: Values, name: keyof Values): string =>
  encodeURIComponent(required(values, name));

/** The admin APIs a command may call, with the environment variables that locate and unlock them. */
export const ADMIN_APIS = {
  users: { urlVar: 'USERS_ADMIN_URL', keyVar: 'USERS_ADMIN_KEY', defaultUrl: 'http://localhost:4456' },
  identity: {
    urlVar: 'IDENTITY_ADMIN_URL',
    keyVar: 'IDENTITY_ADMIN_KEY',
    defaultUrl: 'http://localhost:4434',
  },
  oauth2: { urlVar: 'OAUTH2_ADMIN_URL', keyVar: 'OAUTH2_ADMIN_KEY', defaultUrl: 'http://localhost:4445' },
  agent: { urlVar: 'AGENT_ADMIN_URL', keyVar: 'AGENT_ADMIN_KEY', defaultUrl: 'http://localhost:4467' },
} as const;

export type AdminApi = keyof typeof ADMIN_APIS;

/** One request to an admin API. */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** Which admin API answers: the user service's (default), the identity service's, the authorization server's or the agent service's. */
  api?: AdminApi;
}

/** The admin API's base URL and auth headers from the environment, or the exit code of a bad setting. */
export function resolveTarget(
  api: AdminApi,
  io: CliIo,
): { base: string; headers: Record<string, string> } | number {
  const target = ADMIN_APIS[api];
  try {
    // The key may be a list being rotated (the first is sent) or come from a file (X_FILE).
    const env = settingsFromFiles(io.env, [target.urlVar, target.keyVar]);
    const parsed = adminKeySchema.safeParse(env[target.keyVar] || undefined);
    if (!parsed.success) throw new Error(`${target.keyVar}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const key = callerKey(parsed.data);
    return {
      base: (env[target.urlVar] ?? target.defaultUrl).replace(/\/+$/, ''),
      headers: adminAuthHeaders(key || undefined),
    };
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

export function unreachable(base: string, error: unknown): string {
  const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  return JSON.stringify({ errorCode: 'UNREACHABLE', message: `Cannot reach ${base}: ${reason}` }, null, 2);
}
