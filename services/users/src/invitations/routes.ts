import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { rateLimiter } from '../http/rate-limit.ts';
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
import { createInvitation, resendInvitation, revokeInvitation } from './service.ts';
import { uuidSchema } from '../http/schemas.ts';

export function registerInvitationAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/admin/invitations',
    openApi({ body: createInvitationSchema, responses: { 201: invitationSchema } }),
    async (request, reply) => {
      const input = parseInput(createInvitationSchema, request.body);
      const invitation = await createInvitation(ctx, input);
      request.log.info({ invitationId: invitation.id, userId: invitation.userId }, 'invitation created');
      return sendOutput(reply, 201, invitationSchema, invitation);
    },
  );

  app.get(
    '/admin/invitations',
    openApi({ query: listInvitationsQuerySchema, responses: { 200: invitationListSchema } }),
    async (request, reply) => {
      const { organisationId } = parseInput(listInvitationsQuerySchema, request.query);
      const invitations = await listInvitations(ctx.db, organisationId, ctx.clock.now());
      return sendOutput(reply, 200, invitationListSchema, { invitations });
    },
  );

  app.get(
    '/admin/invitations/:id',
    openApi({ params: invitationIdParamsSchema, responses: { 200: invitationSchema } }),
    async (request, reply) => {
      const { id } = parseInput(invitationIdParamsSchema, request.params);
      const invitation = uuidSchema.safeParse(id).success
        ? await findInvitation(ctx.db, id, ctx.clock.now())
        : null;
      if (!invitation) throw new AppError('INVITATION_NOT_FOUND', 'No invitation has this id.');
      return sendOutput(reply, 200, invitationSchema, invitation);
    },
  );

  app.post(
    '/admin/invitations/:id/resend',
    openApi({ params: invitationIdParamsSchema, responses: { 200: invitationSchema } }),
    async (request, reply) => {
      const { id } = parseInput(invitationIdParamsSchema, request.params);
      const invitation = await resendInvitation(ctx, id);
      request.log.info({ invitationId: invitation.id, sendCount: invitation.sendCount }, 'invitation resent');
      return sendOutput(reply, 200, invitationSchema, invitation);
    },
  );

  app.post(
    '/admin/invitations/:id/revoke',
    openApi({ params: invitationIdParamsSchema, responses: { 200: invitationSchema } }),
    async (request, reply) => {
      const { id } = parseInput(invitationIdParamsSchema, request.params);
      const invitation = await revokeInvitation(ctx, id);
      request.log.info({ invitationId: invitation.id }, 'invitation revoked');
      return sendOutput(reply, 200, invitationSchema, invitation);
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

  app.get(
    '/invitations/status',
    openApi({ query: statusQuerySchema, responses: { 200: statusAnswerSchema } }),
    async (request, reply) => {
      const decision = await limiter.hit(request.ip, ctx.clock.now());
      if (!decision.allowed) {
        throw new AppError('RATE_LIMITED', 'Too many requests. Try again later.', {
          'retry-after': String(decision.retryAfterSec),
        });
      }
      const { flow } = parseInput(statusQuerySchema, request.query);
      const state = await stateForFlow(ctx.db, flow, ctx.clock.now());
      if (state === null) throw new AppError('INVITATION_NOT_FOUND', 'No invitation has this link.');
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, statusAnswerSchema, { state });
    },
  );
}
