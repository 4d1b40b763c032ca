import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { consoleCaller } from '../access/auth.ts';
import type { UsersContext } from '../context.ts';
import { currentCaller } from '../http/caller.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';

const clientParams = z.object({ clientId: z.string().trim().min(1).max(200) }).strict();

const accountSchema = z.object({
  name: z.string(),
  email: z.string(),
  organisation: z.object({ name: z.string() }),
});

/** One application the person allowed: the union of its grants' scopes, the latest grant time. */
const connectedAppsSchema = z.object({
  apps: z.array(
    z.object({ clientId: z.string(), name: z.string(), scopes: z.array(z.string()), grantedAt: z.string() }),
  ),
});

/**
 * Who is asking about their own account: the bearer access token when the request carries one (a
 * Microsoft 365 person has no identity session, only our token; introspected, and never falling back
 * to a cookie when it is refused), else the identity session cookie.
 */
async function accountHolder(
  ctx: UsersContext,
  request: FastifyRequest,
): Promise<{ userId: string; identityId: string }> {
  if (request.headers.authorization !== undefined) {
    const caller = await consoleCaller(ctx, request);
    return { userId: caller.userId, identityId: caller.identityId };
  }
  const caller = await currentCaller(ctx, request);
  return { userId: caller.user.id, identityId: caller.session.identity.id };
}

/**
 * The signed-in person's account page data: who they are (name, email, organisation) and their
 * connected applications (the OAuth2 grants of their identity, the access tokens' subject), listed and
 * revoked through the authorization server's admin API. The caller is whoever the session cookie or
 * the access token says: nobody can list or revoke another person's grants.
 */
export function registerConnectedAppRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/me/account', openApi({ responses: { 200: accountSchema } }), async (request, reply) => {
    const holder = await accountHolder(ctx, request);
    const row = await ctx.db
      .selectFrom('users')
      .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
      .select(['users.first_name', 'users.last_name', 'users.email', 'organisations.name as organisation'])
      .where('users.id', '=', holder.userId)
      .executeTakeFirst();
    if (!row) throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 200, accountSchema, {
      name: `${row.first_name} ${row.last_name}`.trim(),
      email: row.email,
      organisation: { name: row.organisation },
    });
  });

  app.get(
    '/me/connected-apps',
    openApi({ responses: { 200: connectedAppsSchema } }),
    async (request, reply) => {
      const holder = await accountHolder(ctx, request);
      const apps = await ctx.oauth2Admin.listConsentSessions(holder.identityId);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, connectedAppsSchema, { apps });
    },
  );

  app.delete(
    '/me/connected-apps/:clientId',
    openApi({ params: clientParams, responses: { 204: null } }),
    async (request, reply) => {
      const { clientId } = parseInput(clientParams, request.params);
      const holder = await accountHolder(ctx, request);
      await ctx.oauth2Admin.revokeConsentSessions(holder.identityId, clientId);
      request.log.info({ userId: holder.userId, clientId }, 'connected app revoked');
      return reply.code(204).send();
    },
  );
}
