import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { AppError } from './errors.ts';

/** Parses request input at the route edge; failures are 400 `INVALID_REQUEST` naming the fields. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail = result.error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  throw new AppError('INVALID_REQUEST', `The request is invalid: ${detail}`);
}

/** Sends a response after checking it against its schema, so the wire shape never drifts. */
export function sendOutput<S extends z.ZodType>(
  reply: FastifyReply,
  status: number,
  schema: S,
  value: z.input<S>,
): FastifyReply {
  return reply.code(status).send(schema.parse(value));
}
