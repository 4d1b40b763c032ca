import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { optionalSecretListSchema } from './config.ts';

/**
 * Who may reach an admin API. Admin listeners bind to the loopback interface unless configured
 * otherwise; binding anywhere else needs an admin key (sent as `Authorization: Bearer <key>`),
 * and every request's `Host` header must name this machine or an allowed host, so a web page
 * that rebinds its own DNS name to 127.0.0.1 cannot drive the API from a browser.
 */
export interface AdminAccess {
  /** Interface the admin listener binds to. */
  host: string;
  /**
   * Bearer tokens an admin request may carry (any of them: a rotation lists the new key beside the
   * old one); undefined means none is required (loopback only).
   */
  keys: readonly string[] | undefined;
  /** Host names (without port) accepted in the `Host` header besides the loopback names. */
  allowedHosts: string[];
}

/** The loopback interface: the admin listener's default bind address. */
export const DEFAULT_ADMIN_HOST = '127.0.0.1';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

export const adminHostSchema = z.string().trim().min(1).default(DEFAULT_ADMIN_HOST);
/**
 * An admin API's bearer keys, comma-separated, each long enough that guessing it is hopeless. The
 * API accepts every entry; its callers send the first. The same variable is set on the owner and on
 * its callers, so a key is rotated in three steps with no refused call (new key second, then first,
 * then the old one dropped).
 */
export const adminKeySchema = optionalSecretListSchema({
  description:
    'Bearer keys of an admin API (comma-separated, at least 32 characters each): the API accepts any, callers send the first',
  min: 32,
});
export const hostListSchema = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );

type AdminListenerShape<P extends string> = Record<`${P}_ADMIN_HOST`, typeof adminHostSchema> &
  Record<`${P}_ADMIN_KEY`, typeof adminKeySchema> &
  Record<`${P}_ADMIN_ALLOWED_HOSTS`, typeof hostListSchema>;

/** The parsed settings of {@link adminListenerEnvShape}. */
export type AdminListenerEnv<P extends string> = Record<`${P}_ADMIN_HOST`, string> &
  Partial<Record<`${P}_ADMIN_KEY`, readonly string[]>> &
  Record<`${P}_ADMIN_ALLOWED_HOSTS`, string[]>;

/**
 * The settings of a service's admin listener, named after its env prefix: the interface it binds
 * (`<P>_ADMIN_HOST`), the keys it requires (`<P>_ADMIN_KEY`) and the host names it answers
 * (`<P>_ADMIN_ALLOWED_HOSTS`; `besides` says which it answers without them).
 */
export function adminListenerEnvShape<P extends string>(
  prefix: P,
  besides = 'loopback',
): AdminListenerShape<P> {
  return {
    [`${prefix}_ADMIN_HOST`]: adminHostSchema.describe(
      `Interface the admin API binds (loopback by default; elsewhere ${prefix}_ADMIN_KEY is required).`,
    ),
    [`${prefix}_ADMIN_KEY`]: adminKeySchema
      .describe('Bearer key the admin API requires (at least 32 characters); required off loopback.')
      .meta({ secret: true }),
    [`${prefix}_ADMIN_ALLOWED_HOSTS`]: hostListSchema.describe(
      `Host names the admin API answers besides ${besides}, comma-separated.`,
    ),
  } as AdminListenerShape<P>;
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return LOOPBACK_NAMES.includes(h) || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Builds the admin access settings and refuses a configuration that would expose an admin API
 * without a key. `name` is the env prefix, used in the error message.
 */
export function adminAccess(
  name: string,
  p: { host: string; keys: readonly string[] | undefined; allowedHosts: string[] },
): AdminAccess {
  if (!isLoopback(p.host) && !p.keys) {
    throw new Error(
      `${name}_ADMIN_HOST is ${p.host}, which is not the loopback interface: set ${name}_ADMIN_KEY (at least 32 characters) so the admin API requires a bearer token.`,
    );
  }
  return Object.freeze({ host: p.host, keys: p.keys, allowedHosts: [...p.allowedHosts] });
}

/** {@link adminAccess} from the settings of {@link adminListenerEnvShape}; `alsoHosts` are answered too. */
export function adminAccessFromEnv<P extends string>(
  prefix: P,
  env: AdminListenerEnv<P>,
  alsoHosts: readonly string[] = [],
): AdminAccess {
  const host: Record<`${P}_ADMIN_HOST`, string> = env;
  const keys: Partial<Record<`${P}_ADMIN_KEY`, readonly string[]>> = env;
  const allowed: Record<`${P}_ADMIN_ALLOWED_HOSTS`, string[]> = env;
  return adminAccess(prefix, {
    host: host[`${prefix}_ADMIN_HOST` as const],
    keys: keys[`${prefix}_ADMIN_KEY` as const],
    allowedHosts: [...alsoHosts, ...allowed[`${prefix}_ADMIN_ALLOWED_HOSTS` as const]],
  });
}

/** The host name of a `Host` header value, lower-cased, without port or IPv6 brackets. */
export function hostnameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const v = header.trim().toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    return end > 0 ? v.slice(1, end) : undefined;
  }
  const colon = v.indexOf(':');
  return colon === -1 ? v : v.slice(0, colon);
}

export function hostAllowed(access: AdminAccess, header: string | undefined): boolean {
  const name = hostnameOf(header);
  if (!name) return false;
  if (isLoopback(name)) return true;
  if (name === access.host.toLowerCase() && access.host !== '0.0.0.0' && access.host !== '::') return true;
  return access.allowedHosts.includes(name);
}

const digest = (v: string) => createHash('sha256').update(v).digest();

/** Constant-time check of an `Authorization` header against every key (each one compared). */
export function bearerMatches(keys: readonly string[], header: string | undefined): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  if (!m) return false;
  const sent = digest(m[1]!);
  let matched = false;
  for (const key of keys) matched = timingSafeEqual(sent, digest(key)) || matched;
  return matched;
}

export type AdminRefusal = { status: 401 | 403; message: string };

/** What an admin request is refused for, if anything. Health checks need no key. */
export function checkAdminRequest(
  access: AdminAccess,
  req: { url: string; headers: Record<string, string | string[] | undefined> },
): AdminRefusal | undefined {
  const host = req.headers.host;
  if (!hostAllowed(access, typeof host === 'string' ? host : undefined)) {
    return { status: 403, message: 'The Host header does not name this admin API.' };
  }
  if (access.keys && !req.url.startsWith('/health/')) {
    const auth = req.headers.authorization;
    if (!bearerMatches(access.keys, typeof auth === 'string' ? auth : undefined)) {
      return { status: 401, message: 'The admin API requires a valid bearer token.' };
    }
  }
  return undefined;
}

/**
 * Adds the Host and key checks to an admin Fastify instance. `refuse` builds the service's own
 * error (it is thrown, so the service's error handler serialises it).
 */
export function registerAdminGuard(
  app: FastifyInstance,
  access: AdminAccess,
  refuse: (r: AdminRefusal) => Error,
): void {
  app.addHook('onRequest', async (req) => {
    const refusal = checkAdminRequest(access, req);
    if (refusal) throw refuse(refusal);
  });
}

/** The key a caller sends: the first of the configured list (none when no key is configured). */
export function callerKey(keys: readonly string[] | undefined): string | undefined {
  return keys?.[0];
}

/** Headers a caller of an admin API sends: the bearer token when a key is configured. */
export function adminAuthHeaders(key: string | undefined): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}
