import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { currentCaller } from '../http/caller.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import {
  completeAnswerSchema,
  completeBodySchema,
  initialiseAnswerSchema,
  initialiseBodySchema,
} from './schemas.ts';
import { complete, initialise } from './service.ts';

export function registerGitAuthRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/git-auth/initialise', async (request, reply) => {
    const body = parseInput(initialiseBodySchema, request.body);
    const caller = await currentCaller(deps, request);
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    const answer = await initialise(deps, caller, body.flow, origin);
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 200, initialiseAnswerSchema, answer);
  });

  app.post('/git-auth/complete', async (request, reply) => {
    const body = parseInput(completeBodySchema, request.body);
    // The app's callback tells the two apart by this prefix (our codes start `ory_ac_`): never send ours to the host.
    if (body.code.toLowerCase().startsWith('ory')) {
      throw new AppError(
        'INVALID_CODE',
        'This code belongs to the authorization server, not to the source-code host.',
      );
    }
    const caller = await currentCaller(deps, request);
    const answer = await complete(deps, caller, body.code, body.state);
    request.log.info({ userId: caller.user.id, login: answer.login }, 'source-code host connected');
    return sendOutput(reply, 200, completeAnswerSchema, answer);
  });
}
