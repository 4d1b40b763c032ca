import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { rateLimiter } from '../http/rate-limit.ts';
import { collectionRoutes } from '../http/collection-routes.ts';
import { jsonRoutes } from '../http/route.ts';
import { findInvitation, listInvitations, stateForFlow } from './repository.ts';
import {
  createInvitationSchema,
  invitationIdParamsSchema,
  invitationListSchema,
  invitationSchema,
  listInvitationsQuerySchema,
  statusAnswerSchema,
  statusQuerySchema,
} from './schemas.ts';
import { createInvitation, invitationNotFound, resendInvitation, revokeInvitation } from './service.ts';

export function registerInvitationAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const route = jsonRoutes(app, ctx);
  collectionRoutes(route, '/admin/invitations', {
    record: invitationSchema,
    body: createInvitationSchema,
    create: (body) => createInvitation(ctx, body),
    created: (invitation) => [
      { invitationId: invitation.id, userId: invitation.userId },
      'invitation created',
    ],
    query: listInvitationsQuerySchema,
    list: invitationListSchema,
    select: async (query) => ({
      invitations: await listInvitations(ctx.db, query.organisationId, ctx.clock.now()),
    }),
    idParams: invitationIdParamsSchema,
    find: (id) => findInvitation(ctx.db, id, ctx.clock.now()),
    notFound: invitationNotFound,
  });

  route(
    'POST',
    '/admin/invitations/:id/resend',
    { params: invitationIdParamsSchema, response: invitationSchema },
    async ({ params: { id } }, request) => {
      const invitation = await resendInvitation(ctx, id);
      request.log.info({ invitationId: invitation.id, sendCount: invitation.sendCount }, 'invitation resent');
      return invitation;
    },
  );

  route(
    'POST',
    '/admin/invitations/:id/revoke',
    { params: invitationIdParamsSchema, response: invitationSchema },
    async ({ params: { id } }, request) => {
      const invitation = await revokeInvitation(ctx, id);
      request.log.info({ invitationId: invitation.id }, 'invitation revoked');
      return invitation;
    },
  );
}

export function registerInvitationPublicRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const limiter = rateLimiter(
    ctx,
    'invitation-status',
    ctx.config.invitationStatusRateLimit,
    ctx.config.invitationStatusRateWindowSeconds,
  );

  jsonRoutes(app, ctx)(
    'GET',
    '/invitations/status',
    { query: statusQuerySchema, response: statusAnswerSchema, limiter, noStore: true },
    async ({ query: { flow } }) => {
      const state = await stateForFlow(ctx.db, flow, ctx.clock.now());
      if (state === null) throw new AppError('INVITATION_NOT_FOUND', 'No invitation has this link.');
      return { state };
    },
  );
}
