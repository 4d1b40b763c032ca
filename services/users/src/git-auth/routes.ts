import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { currentCaller } from '../http/caller.ts';
import { AppError } from '../http/errors.ts';
import { jsonRoutes } from '../http/route.ts';
import {
  completeAnswerSchema,
  completeBodySchema,
  initialiseAnswerSchema,
  initialiseBodySchema,
  unlinkAnswerSchema,
} from './schemas.ts';
import { complete, initialise, unlink } from './service.ts';

export function registerGitAuthRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const route = jsonRoutes(app, ctx);
  route(
    'POST',
    '/git-auth/initialise',
    { body: initialiseBodySchema, response: initialiseAnswerSchema, noStore: true },
    async ({ body }, request) => {
      const caller = await currentCaller(ctx, request);
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
      return initialise(ctx, caller, body.flow, origin);
    },
  );

  // Unlinks the caller's source-code-host account (privileged session required).
  route('DELETE', '/git-auth', { response: unlinkAnswerSchema, noStore: true }, async (_input, request) => {
    const caller = await currentCaller(ctx, request);
    const answer = await unlink(ctx, caller);
    request.log.info({ userId: caller.user.id }, 'source-code host unlinked');
    return answer;
  });

  route(
    'POST',
    '/git-auth/complete',
    { body: completeBodySchema, response: completeAnswerSchema },
    async ({ body }, request) => {
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
      return answer;
    },
  );
}
