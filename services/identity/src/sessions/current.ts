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
  const hit = cache.get(key);
  if (hit) return hit;
  const ticket = cache.ticket();
  const session = await findSessionByToken(ctx.db, token, ctx.clock.now());
  if (session) cache.set(key, session, ticket);
  return session;
}

/** The password identifier of the session's identity (prefilled in refresh flows). */
export function sessionIdentifier(s: ActiveSession): string {
  const pw = s.identity.credentials.find((c) => c.type === 'password');
  const email = (s.identity.row.traits as { email?: unknown }).email;
  return pw?.identifiers[0] ?? (typeof email === 'string' ? email : '');
}
