import type { FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.ts';
import { sessionTokenFrom } from '../http/cookies.ts';
import { findSessionByToken, type ActiveSession } from './repo.ts';
import { sha256Hex } from './tokens.ts';

export async function currentSession(
  ctx: IdentityContext,
  req: FastifyRequest,
): Promise<ActiveSession | undefined> {
  const token = sessionTokenFrom(req);
  return token ? findSessionByToken(ctx.db, token, ctx.clock.now()) : undefined;
}

/**
 * `currentSession` through the session cache (whoami only: flows and session management read the
 * database, since they act on what they read). Only active sessions of active identities are cached;
 * an unknown or ended token always reaches the database.
 *
 * Another instance's change reaches this cache by a PostgreSQL notice, a moment after its commit. A
 * caller that has just changed the identity (through any instance or service) and must see the change
 * sends `Cache-Control: no-cache` (RFC 9111 5.2.1.4): the session is read from the database, and what
 * was read replaces the cached entry.
 */
export async function currentSessionCached(
  ctx: IdentityContext,
  req: FastifyRequest,
): Promise<ActiveSession | undefined> {
  const token = sessionTokenFrom(req);
  if (!token || token.length > 256) return undefined;
  const cache = ctx.sessionCache;
  if (!cache.enabled) return findSessionByToken(ctx.db, token, ctx.clock.now());
  const key = sha256Hex(token);
  const hit = wantsFresh(req) ? undefined : cache.get(key);
  if (hit) return hit;
  const ticket = cache.ticket();
  const session = await findSessionByToken(ctx.db, token, ctx.clock.now());
  if (session) cache.set(key, session, ticket);
  return session;
}

/** Whether the request asks not to be answered from a cache (`no-cache` or `max-age=0`). */
export function wantsFresh(req: FastifyRequest): boolean {
  const value = req.headers['cache-control'];
  if (typeof value !== 'string' || value.length > 200) return false;
  return value
    .toLowerCase()
    .split(',')
    .some((d) => {
      const directive = d.trim();
      return directive === 'no-cache' || directive === 'max-age=0';
    });
}

/** The password identifier of the session's identity (prefilled in refresh flows). */
export function sessionIdentifier(s: ActiveSession): string {
  const pw = s.identity.credentials.find((c) => c.type === 'password');
  const email = (s.identity.row.traits as { email?: unknown }).email;
  return pw?.identifiers[0] ?? (typeof email === 'string' ? email : '');
}
