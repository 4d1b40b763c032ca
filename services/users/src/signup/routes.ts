import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { jsonRoutes } from '../http/route.ts';
import { organisationPath } from '../organisations/path.ts';
import {
  selfSignUpSettingSchema,
  selfSignUpViewSchema,
  signUpMemberResultSchema,
  signUpMemberSchema,
  signUpOpenSchema,
} from './schemas.ts';
import { anySignUpOpen, getSelfSignUp, setSelfSignUp, signUpMember } from './service.ts';

/** Self sign-up (issue 25): the operator's per-organisation setting, and the identity service's calls. */
export function registerSignUpAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const route = jsonRoutes(app, ctx);
  route(
    'GET',
    '/admin/organisations/:id/self-signup',
    { params: organisationPath, response: selfSignUpViewSchema },
    async ({ params: id }) => getSelfSignUp(ctx, id),
  );

  route(
    'PUT',
    '/admin/organisations/:id/self-signup',
    { params: organisationPath, body: selfSignUpSettingSchema, response: selfSignUpViewSchema },
    async ({ params: id, body: { enabled } }, request) => {
      const view = await setSelfSignUp(ctx, id, enabled);
      request.log.info({ organisationId: id, enabled }, 'self sign-up set');
      return view;
    },
  );

  // For the identity service: whether registration flows exist at all.
  route('GET', '/admin/signup', { response: signUpOpenSchema, noStore: true }, async () => ({
    open: await anySignUpOpen(ctx.db),
  }));

  // For the identity service's registration flow (the password is passed on, never logged).
  route(
    'POST',
    '/admin/signup/members',
    { body: signUpMemberSchema, status: 201, response: signUpMemberResultSchema },
    async ({ body: person }, request) => {
      const member = await signUpMember(ctx, person, null);
      request.log.info({ organisationId: member.organisationId, userId: member.userId }, 'self sign-up');
      return { userId: member.userId, identityId: member.identityId };
    },
  );
}
