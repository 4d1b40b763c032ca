import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { organisationIdParamsSchema } from '../organisations/schemas.ts';
import { uuidSchema } from '../http/schemas.ts';
import { AppError } from '../http/errors.ts';
import {
  selfSignUpSettingSchema,
  selfSignUpViewSchema,
  signUpMemberResultSchema,
  signUpMemberSchema,
  signUpOpenSchema,
} from './schemas.ts';
import { anySignUpOpen, getSelfSignUp, setSelfSignUp, signUpMember } from './service.ts';

function organisationId(params: unknown): string {
  const { id } = parseInput(organisationIdParamsSchema, params);
  if (!uuidSchema.safeParse(id).success)
    throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  return id;
}

/** Self sign-up (issue 25): the operator's per-organisation setting, and the identity service's calls. */
export function registerSignUpAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get(
    '/admin/organisations/:id/self-signup',
    openApi({ params: organisationIdParamsSchema, responses: { 200: selfSignUpViewSchema } }),
    async (request, reply) =>
      sendOutput(reply, 200, selfSignUpViewSchema, await getSelfSignUp(ctx, organisationId(request.params))),
  );

  app.put(
    '/admin/organisations/:id/self-signup',
    openApi({
      params: organisationIdParamsSchema,
      body: selfSignUpSettingSchema,
      responses: { 200: selfSignUpViewSchema },
    }),
    async (request, reply) => {
      const id = organisationId(request.params);
      const { enabled } = parseInput(selfSignUpSettingSchema, request.body);
      const view = await setSelfSignUp(ctx, id, enabled);
      request.log.info({ organisationId: id, enabled }, 'self sign-up set');
      return sendOutput(reply, 200, selfSignUpViewSchema, view);
    },
  );

  // For the identity service: whether registration flows exist at all.
  app.get('/admin/signup', openApi({ responses: { 200: signUpOpenSchema } }), async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 200, signUpOpenSchema, { open: await anySignUpOpen(ctx.db) });
  });

  // For the identity service's registration flow (the password is passed on, never logged).
  app.post(
    '/admin/signup/members',
    openApi({ body: signUpMemberSchema, responses: { 201: signUpMemberResultSchema } }),
    async (request, reply) => {
      const person = parseInput(signUpMemberSchema, request.body);
      const member = await signUpMember(ctx, person, null);
      request.log.info({ organisationId: member.organisationId, userId: member.userId }, 'self sign-up');
      return sendOutput(reply, 201, signUpMemberResultSchema, {
        userId: member.userId,
        identityId: member.identityId,
      });
    },
  );
}
