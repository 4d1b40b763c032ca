import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { createUser } from './create-user.ts';
import { findUser, listUsers } from './repository.ts';
import {
  createUserSchema,
  listUsersQuerySchema,
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
}
