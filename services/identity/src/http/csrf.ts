import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { errors } from '../errors/identity-error.ts';
import { safeEqual, sha256Hex } from '../sessions/tokens.ts';
import { csrfCookieName, setCsrfCookie } from './cookies.ts';

/**
 * Synchronizer token bound to a cookie. The cookie holds a random 256-bit token T; the flow row keeps
 * only sha256(T) (so any instance can check it); the `csrf_token` node carries T masked with a fresh
 * one-time pad (BREACH-safe, like nosurf). A submit must present the cookie, a flow bound to it and
 * a node value that unmasks to it.
 */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function csrfCookieToken(req: FastifyRequest, config: Config): string | undefined {
  const t = req.cookies[csrfCookieName(config)];
  return t && TOKEN.test(t) ? t : undefined;
}

/** The request's CSRF token, creating and setting the cookie when missing. */
export function ensureCsrfToken(req: FastifyRequest, reply: FastifyReply, config: Config): string {
  const existing = csrfCookieToken(req, config);
  if (existing) return existing;
  const token = randomBytes(32).toString('base64url');
  setCsrfCookie(reply, config, token);
  return token;
}

export function maskToken(token: string): string {
  const raw = Buffer.from(token, 'base64url');
  const pad = randomBytes(raw.length);
  const out = Buffer.alloc(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw[i]! ^ pad[i]!;
  return Buffer.concat([pad, out]).toString('base64url');
}

export function unmaskToken(masked: string): string | undefined {
  if (masked.length > 200) return undefined;
  const buf = Buffer.from(masked, 'base64url');
  if (buf.length !== 64) return undefined;
  const out = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) out[i] = buf[i]! ^ buf[i + 32]!;
  return out.toString('base64url');
}

export const csrfHash = (token: string) => sha256Hex(token);

/**
 * Throws 403 `security_csrf_violation` unless the Origin (when sent) is the public URL or an app
 * origin, and cookie, flow binding and submitted token agree.
 */
export function verifyCsrf(
  req: FastifyRequest,
  config: Config,
  flowCsrfHash: string | null,
  sent: unknown,
): void {
  if (flowCsrfHash === null) return; // api and admin-made flows
  const origin = req.headers.origin;
  if (
    origin &&
    origin !== 'null' &&
    origin !== new URL(config.publicUrl).origin &&
    !config.corsOrigins.includes(origin)
  ) {
    throw errors.csrf('The request was sent from an origin that is not allowed.');
  }
  const cookie = csrfCookieToken(req, config);
  if (!cookie) throw errors.csrf('The anti-CSRF cookie was not found in the request.');
  if (!safeEqual(csrfHash(cookie), flowCsrfHash)) {
    throw errors.csrf('The anti-CSRF cookie does not belong to this flow.');
  }
  const header = req.headers['x-csrf-token'];
  const value = typeof sent === 'string' && sent ? sent : typeof header === 'string' ? header : '';
  if (!value) throw errors.csrf('The CSRF token is missing.');
  const unmasked = unmaskToken(value);
  if (!unmasked || !safeEqual(unmasked, cookie)) {
    throw errors.csrf('The HTTP Cookie Header was set and a CSRF token was sent but they do not match.');
  }
}

/** True when the request's cookie is the one the flow was bound to (used before rendering the node). */
export function cookieMatchesFlow(req: FastifyRequest, config: Config, flowCsrfHash: string | null): boolean {
  if (flowCsrfHash === null) return true;
  const cookie = csrfCookieToken(req, config);
  return !!cookie && safeEqual(csrfHash(cookie), flowCsrfHash);
}
