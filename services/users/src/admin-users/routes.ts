import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { collectionRoutes } from '../http/collection-routes.ts';
import { jsonRoutes } from '../http/route.ts';
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

const userNotFound = () => new AppError('USER_NOT_FOUND', 'No user has this id.');

export function registerUserRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const route = jsonRoutes(app, ctx);
  collectionRoutes(route, '/admin/users', {
    record: userSchema,
    body: createUserSchema,
    create: (body) => createUser(ctx, body),
    created: (user) => [{ userId: user.id, identityId: user.identityId }, 'user created'],
    query: listUsersQuerySchema,
    list: userListSchema,
    select: async (query) => ({ users: await listUsers(ctx.db, query.organisationId) }),
    idParams: userIdParamsSchema,
    find: (id) => findUser(ctx.db, id),
    notFound: userNotFound,
  });

  route(
    'PATCH',
    '/admin/users/:id',
    { params: userIdParamsSchema, body: updateUserSchema, response: userSchema },
    async ({ params: { id }, body: change }, request) => {
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
        throw userNotFound();
      }
      request.log.info({ userId: id }, 'user updated');
      return (await findUser(ctx.db, id))!;
    },
  );

  /**
   * The operator deactivates (`user:deactivate`) or reactivates (`user:reactivate`) a person, through
   * the same routines as the console and the directory: deactivation ends their sessions, their
   * grants with every token already issued, and their API clients at once. The organisation's last
   * org-admin who can sign in is kept, as in the console (appoint another one first).
   */
  route(
    'POST',
    '/admin/users/:id/deactivate',
    { params: userIdParamsSchema, response: memberSchema },
    async ({ params }, request) => {
      const member = await memberOf(params);
      await applyDeactivation(ctx, operatorOrigin(), member.organisationId, member, {
        keepLastOrgAdmin: true,
      });
      request.log.info({ userId: member.id }, 'user deactivated');
      return memberView(member);
    },
  );

  route(
    'POST',
    '/admin/users/:id/reactivate',
    { params: userIdParamsSchema, response: memberSchema },
    async ({ params }, request) => {
      const member = await memberOf(params);
      await applyReactivation(ctx, operatorOrigin(), member.organisationId, member);
      request.log.info({ userId: member.id }, 'user reactivated');
      return memberView(member);
    },
  );

  async function memberOf({ id }: { id: string }) {
    const user = uuidSchema.safeParse(id).success ? await findUser(ctx.db, id) : null;
    const member = user ? await findMember(ctx.db, user.organisationId, user.id) : null;
    if (!user || !member) throw userNotFound();
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
  route(
    'DELETE',
    '/admin/users/:id',
    { params: userIdParamsSchema, status: 204, response: null },
    async ({ params }, request) => {
      const member = await memberOf(params);
      await applyDeactivation(ctx, operatorOrigin(), member.organisationId, member, {
        keepLastOrgAdmin: false,
      });
      const id = member.id;
      await deleteUser(ctx.db, id);
      request.log.info({ userId: id }, 'user removed from organisation');
    },
  );
}
