import type { FastifyRequest } from 'fastify';
import type { WhoamiSession } from '../clients/identity-public.ts';
import type { UsersContext } from '../context.ts';
import { AppError } from './errors.ts';
import { uuidSchema } from './schemas.ts';

export interface Caller {
  session: WhoamiSession;
  user: { id: string; identityId: string; organisationId: string; email: string };
}

/**
 * Who is calling a public endpoint with credentials: the browser's identity session cookie (or an
 * `X-Session-Token`) is forwarded to the identity service's `/sessions/whoami`, and the session's
 * identity must be linked to one of our users (`traits.userServiceID` and `users.identity_id`).
 */
export async function currentCaller(ctx: UsersContext, request: FastifyRequest): Promise<Caller> {
  const token = request.headers['x-session-token'];
  const session = await ctx.identityPublic.whoami({
    cookie: request.headers.cookie,
    sessionToken: typeof token === 'string' ? token : undefined,
  });
  const userId = session.identity.traits.userServiceID;
  const row =
    userId !== undefined && uuidSchema.safeParse(userId).success
      ? await ctx.db
          .selectFrom('users')
          .select(['id', 'identity_id', 'organisation_id', 'email'])
          .where('id', '=', userId)
          .executeTakeFirst()
      : undefined;
  if (!row || row.identity_id !== session.identity.id) {
    throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
  }
  return {
    session,
    user: { id: row.id, identityId: row.identity_id, organisationId: row.organisation_id, email: row.email },
  };
}

/** The caller's user agent, bounded, for audit records. */
export function userAgentOf(request: FastifyRequest): string | null {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' && ua.length > 0 ? ua.slice(0, 512) : null;
}
