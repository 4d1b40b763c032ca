import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { sha256Hex } from '../sessions/tokens.ts';

export const SESSION_COOKIE = 'ory_kratos_session';

/** Kratos: `csrf_token_<hex sha256 of the public base URL>`. */
export const csrfCookieName = (config: Config) => `csrf_token_${sha256Hex(config.publicUrl)}`;

/** Secure unless the browser-facing public URL is plain http (local development). */
const secureCookies = (config: Config) => config.publicUrl.startsWith('https://');

function base(config: Config) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: secureCookies(config),
    ...(config.cookieDomain ? { domain: config.cookieDomain } : {}),
  };
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string, expiresAt: Date): void {
  reply.setCookie(SESSION_COOKIE, token, { ...base(config), expires: expiresAt });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, base(config));
}

export function setCsrfCookie(reply: FastifyReply, config: Config, token: string): void {
  reply.setCookie(csrfCookieName(config), token, { ...base(config), maxAge: 365 * 24 * 3600 });
}

/** The session token from the cookie, `Authorization: Bearer` or `X-Session-Token`. */
export function sessionTokenFrom(req: FastifyRequest): string | undefined {
  const header = req.headers['x-session-token'];
  if (typeof header === 'string' && header) return header;
  const auth = req.headers.authorization;
  if (auth && /^bearer /i.test(auth)) return auth.slice(7).trim();
  return req.cookies[SESSION_COOKIE] || undefined;
}
