import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { createUser } from './create-user.ts';
import { deleteUser, findUser, listUsers, updateUser } from './repository.ts';
import {
  createUserSchema,
  listUsersQuerySchema,
  updateUserSchema,
  userIdParamsSchema,
  userListSchema,
  userSchema,
} from './schemas.ts';

export function registerUserRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/admin/users', async (request, reply) => {
    const input = parseInput(createUserSchema, request.body);
    const user = await createUser(ctx, input);
    request.log.info({ userId: user.id, identityId: user.identityId }, 'user created');
    return sendOutput(reply, 201, userSchema, user);
  });

  app.get('/admin/users', async (request, reply) => {
    const { organisationId } = parseInput(listUsersQuerySchema, request.query);
    return sendOutput(reply, 200, userListSchema, { users: await listUsers(ctx.db, organisationId) });
  });

  app.get('/admin/users/:id', async (request, reply) => {
    const { id } = parseInput(userIdParamsSchema, request.params);
    const user = uuidSchema.safeParse(id).success ? await findUser(ctx.db, id) : null;
    if (!user) throw new AppError('USER_NOT_FOUND', 'No user has this id.');
    return sendOutput(reply, 200, userSchema, user);
  });

  app.patch('/admin/users/:id', async (request, reply) => {
    const { id } = parseInput(userIdParamsSchema, request.params);
    const change = parseInput(updateUserSchema, request.body);
    if (!uuidSchema.safeParse(id).success || !(await updateUser(ctx.db, id, change))) {
      throw new AppError('USER_NOT_FOUND', 'No user has this id.');
    }
    request.log.info({ userId: id }, 'user updated');
    return sendOutput(reply, 200, userSchema, (await findUser(ctx.db, id))!);
  });

  /**
   * Removes the user from their organisation. Their identity's sessions are revoked first, so every
   * token grant bound to them ends at once (the authorization server checks the session at each
   * refresh); then the user row goes, so no new sign-in gets claims either.
   */
  app.delete('/admin/users/:id', async (request, reply) => {
    const { id } = parseInput(userIdParamsSchema, request.params);
    const user = uuidSchema.safeParse(id).success ? await findUser(ctx.db, id) : null;
    if (!user) throw new AppError('USER_NOT_FOUND', 'No user has this id.');
    if (user.identityId) await ctx.identityAdmin.deleteSessions(user.identityId);
    await deleteUser(ctx.db, id);
    request.log.info({ userId: id }, 'user removed from organisation');
    return reply.code(204).send();
  });
}
