import type { FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.ts';
import { sessionTokenFrom } from '../http/cookies.ts';
import { findSessionByToken, type ActiveSession } from './repo.ts';

export async function currentSession(
  ctx: IdentityContext,
  req: FastifyRequest,
): Promise<ActiveSession | undefined> {
  const token = sessionTokenFrom(req);
  return token ? findSessionByToken(ctx.db, token, ctx.clock.now()) : undefined;
}

/** The password identifier of the session's identity (prefilled in refresh flows). */
export function sessionIdentifier(s: ActiveSession): string {
  const pw = s.identity.credentials.find((c) => c.type === 'password');
  const email = (s.identity.row.traits as { email?: unknown }).email;
  return pw?.identifiers[0] ?? (typeof email === 'string' ? email : '');
}
