import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import { currentCaller } from '../http/caller.ts';
import { parseInput } from '../http/validate.ts';

const clientParams = z.object({ clientId: z.string().trim().min(1).max(200) }).strict();

/**
 * The signed-in person's connected applications (the OAuth2 grants of their identity, the access
 * tokens' subject), listed and revoked through the authorization server's admin API. The caller is
 * whoever the identity session cookie says: nobody can list or revoke another person's grants.
 */
export function registerConnectedAppRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/me/connected-apps', async (request, reply) => {
    const caller = await currentCaller(ctx, request);
    const apps = await ctx.oauth2Admin.listConsentSessions(caller.session.identity.id);
    reply.header('cache-control', 'no-store');
    return { apps };
  });

  app.delete('/me/connected-apps/:clientId', async (request, reply) => {
    const { clientId } = parseInput(clientParams, request.params);
    const caller = await currentCaller(ctx, request);
    await ctx.oauth2Admin.revokeConsentSessions(caller.session.identity.id, clientId);
    request.log.info({ userId: caller.user.id, clientId }, 'connected app revoked');
    return reply.code(204).send();
  });
}
