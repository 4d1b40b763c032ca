import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { createUser } from '../users/create-user.ts';
import { deleteUser, findUser, listUsers, updateUser } from '../users/repository.ts';
import { operatorOrigin, recordEvent } from '../events/events.ts';
import { applyDeactivation, applyReactivation, findMember } from '../members/members.ts';
import { memberSchema } from '../console/schemas.ts';
import {
  createUserSchema,
  listUsersQuerySchema,
  updateUserSchema,
  userIdParamsSchema,
  userListSchema,
  userSchema,
} from '../users/schemas.ts';

export function registerUserRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/admin/users',
    openApi({ body: createUserSchema, responses: { 201: userSchema } }),
    async (request, reply) => {
      const input = parseInput(createUserSchema, request.body);
      const user = await createUser(ctx, input);
      request.log.info({ userId: user.id, identityId: user.identityId }, 'user created');
      return sendOutput(reply, 201, userSchema, user);
    },
  );

  app.get(
    '/admin/users',
    openApi({ query: listUsersQuerySchema, responses: { 200: userListSchema } }),
    async (request, reply) => {
      const { organisationId } = parseInput(listUsersQuerySchema, request.query);
      return sendOutput(reply, 200, userListSchema, { users: await listUsers(ctx.db, organisationId) });
    },
  );

  app.get(
    '/admin/users/:id',
    openApi({ params: userIdParamsSchema, responses: { 200: userSchema } }),
    async (request, reply) => {
      const { id } = parseInput(userIdParamsSchema, request.params);
      const user = uuidSchema.safeParse(id).success ? await findUser(ctx.db, id) : null;
      if (!user) throw new AppError('USER_NOT_FOUND', 'No user has this id.');
      return sendOutput(reply, 200, userSchema, user);
    },
  );

  app.patch(
    '/admin/users/:id',
    openApi({ params: userIdParamsSchema, body: updateUserSchema, responses: { 200: userSchema } }),
    async (request, reply) => {
      const { id } = parseInput(userIdParamsSchema, request.params);
      const change = parseInput(updateUserSchema, request.body);
      const updated =
        uuidSchema.safeParse(id).success &&
        (await ctx.db.transaction().execute(async (trx) => {
          const before = await trx
            .selectFrom('users')
            .select(['role', 'organisation_id'])
            .where('id', '=', id)
            .forUpdate()
            .executeTakeFirst();
          if (!before || !(await updateUser(trx, id, change))) return false;
          if (change.role !== undefined && change.role !== before.role) {
            await recordEvent(
              trx,
              operatorOrigin(),
              {
                organisationId: before.organisation_id,
                type: 'member.role_changed',
                subjectId: id,
                details: { from: before.role, to: change.role },
              },
              ctx.clock.now(),
            );
          }
          return true;
        }));
      if (!updated) {
        throw new AppError('USER_NOT_FOUND', 'No user has this id.');
      }
      request.log.info({ userId: id }, 'user updated');
      return sendOutput(reply, 200, userSchema, (await findUser(ctx.db, id))!);
    },
  );

  /**
   * The operator deactivates (`user:deactivate`) or reactivates (`user:reactivate`) a person, through
   * the same routines as the console and the directory: deactivation ends their sessions, their
   * grants with every token already issued, and their API clients at once. The organisation's last
   * org-admin who can sign in is kept, as in the console (appoint another one first).
   */
  app.post(
    '/admin/users/:id/deactivate',
    openApi({ params: userIdParamsSchema, responses: { 200: memberSchema } }),
    async (request, reply) => {
      const member = await memberOf(request.params);
      await applyDeactivation(ctx, operatorOrigin(), member.organisationId, member, {
        keepLastOrgAdmin: true,
      });
      request.log.info({ userId: member.id }, 'user deactivated');
      return sendOutput(reply, 200, memberSchema, await memberView(member));
    },
  );

  app.post(
    '/admin/users/:id/reactivate',
    openApi({ params: userIdParamsSchema, responses: { 200: memberSchema } }),
    async (request, reply) => {
      const member = await memberOf(request.params);
      await applyReactivation(ctx, operatorOrigin(), member.organisationId, member);
      request.log.info({ userId: member.id }, 'user reactivated');
      return sendOutput(reply, 200, memberSchema, await memberView(member));
    },
  );

  async function memberOf(params: unknown) {
    const { id } = parseInput(userIdParamsSchema, params);
    const user = uuidSchema.safeParse(id).success ? await findUser(ctx.db, id) : null;
    const member = user ? await findMember(ctx.db, user.organisationId, user.id) : null;
    if (!user || !member) throw new AppError('USER_NOT_FOUND', 'No user has this id.');
    return { ...member, organisationId: user.organisationId };
  }

  async function memberView(member: { id: string; organisationId: string }) {
    const { identityId: _identityId, ...view } = (await findMember(
      ctx.db,
      member.organisationId,
      member.id,
    ))!;
    return view;
  }

  /**
   * Removes the user from their organisation. They are deprovisioned first, through the routine
   * deactivation uses (identity inactive, sessions, grants with their issued tokens, API clients);
   * then the user row goes, so no new sign-in gets claims either.
   */
  app.delete(
    '/admin/users/:id',
    openApi({ params: userIdParamsSchema, responses: { 204: null } }),
    async (request, reply) => {
      const member = await memberOf(request.params);
      await applyDeactivation(ctx, operatorOrigin(), member.organisationId, member, {
        keepLastOrgAdmin: false,
      });
      const id = member.id;
      await deleteUser(ctx.db, id);
      request.log.info({ userId: id }, 'user removed from organisation');
      return reply.code(204).send();
    },
  );
}
