import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { currentCaller } from '../http/caller.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import {
  completeAnswerSchema,
  completeBodySchema,
  initialiseAnswerSchema,
  initialiseBodySchema,
  unlinkAnswerSchema,
} from './schemas.ts';
import { complete, initialise, unlink } from './service.ts';

export function registerGitAuthRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/git-auth/initialise',
    openApi({ body: initialiseBodySchema, responses: { 200: initialiseAnswerSchema } }),
    async (request, reply) => {
      const body = parseInput(initialiseBodySchema, request.body);
      const caller = await currentCaller(ctx, request);
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
      const answer = await initialise(ctx, caller, body.flow, origin);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, initialiseAnswerSchema, answer);
    },
  );

  // Unlinks the caller's source-code-host account (privileged session required).
  app.delete('/git-auth', openApi({ responses: { 200: unlinkAnswerSchema } }), async (request, reply) => {
    const caller = await currentCaller(ctx, request);
    const answer = await unlink(ctx, caller);
    request.log.info({ userId: caller.user.id }, 'source-code host unlinked');
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 200, unlinkAnswerSchema, answer);
  });

  app.post(
    '/git-auth/complete',
    openApi({ body: completeBodySchema, responses: { 200: completeAnswerSchema } }),
    async (request, reply) => {
      const body = parseInput(completeBodySchema, request.body);
      // The app's callback tells the two apart by this prefix (our codes start `ory_ac_`): never send ours to the host.
      if (body.code.toLowerCase().startsWith('ory')) {
        throw new AppError(
          'INVALID_CODE',
          'This code belongs to the authorization server, not to the source-code host.',
        );
      }
      const caller = await currentCaller(ctx, request);
      const answer = await complete(ctx, caller, body.code, body.state);
      request.log.info({ userId: caller.user.id, login: answer.login }, 'source-code host connected');
      return sendOutput(reply, 200, completeAnswerSchema, answer);
    },
  );
}
