import type { RateLimiter } from '@acme/db/rate-limit';
import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { UsersContext } from '../context.ts';
import { AppError } from './errors.ts';
import { uuidSchema } from './schemas.ts';
import { parseInput, sendOutput } from './validate.ts';

/**
 * A path's parameters: their schema (for validation and the OpenAPI document) and what the route
 * makes of them, e.g. an id that is no UUID refused as the missing record it names.
 */
export interface PathParams<S extends z.ZodObject, T> {
  schema: S;
  resolve: (params: z.output<S>) => T;
}

type Params = z.ZodObject | PathParams<z.ZodObject, unknown>;
type ParamsOf<P> =
  P extends PathParams<z.ZodObject, infer T> ? Awaited<T> : P extends z.ZodObject ? z.output<P> : undefined;
type OutputOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * A path naming one record by its `:id`: an id that is no UUID names nothing (and is never sent to
 * the database), so both it and an unknown id are refused with `notFound` (404).
 */
export function recordPath<S extends z.ZodObject<{ id: z.ZodString }>, T>(
  schema: S,
  find: (id: string) => Promise<T | null | undefined>,
  notFound: () => AppError,
): PathParams<S, Promise<T>> {
  return {
    schema,
    resolve: async ({ id }) => {
      const record = uuidSchema.safeParse(id).success ? await find(id) : null;
      if (!record) throw notFound();
      return record;
    },
  };
}

/** A JSON route of the user service: its input schemas, its answer and how that may be kept. */
interface JsonRouteSpec<P, Q, B, R extends z.ZodType | null, A> {
  /** How the caller authenticates, as the OpenAPI document's security scheme names it. */
  security?: string;
  /** Who calls, checked after the rate limit and before the input is read; the handler gets it. */
  authenticate?: (request: FastifyRequest) => A | Promise<A>;
  params?: P;
  query?: Q;
  body?: B;
  /** Status of a success (200 unless given). */
  status?: number;
  /** The answer's schema; `null` for an answer without a body. */
  response: R;
  /** The answer is personal or secret: `Cache-Control: no-store`. */
  noStore?: boolean;
  /** Counted per client address before anything is read, so malformed probes use it up too. */
  limiter?: RateLimiter;
  /** Largest body accepted (bytes), when not the listener's. */
  bodyLimit?: number;
}

/** What a handler receives: the parsed input. */
interface RouteInput<P, Q, B, A = undefined> {
  caller: A;
  params: ParamsOf<P>;
  query: OutputOf<Q>;
  body: OutputOf<B>;
}

/** Refuses a caller over `limiter`'s budget with 429 `RATE_LIMITED` and its `Retry-After`. */
async function admit(
  ctx: Pick<UsersContext, 'clock'>,
  limiter: RateLimiter,
  key: string,
  message = 'Too many requests. Try again later.',
): Promise<void> {
  const decision = await limiter.hit(key, ctx.clock.now());
  if (!decision.allowed) {
    throw new AppError('RATE_LIMITED', message, { 'retry-after': String(decision.retryAfterSec) });
  }
}

function parseParams(spec: Params | undefined, raw: unknown): unknown {
  if (!spec) return undefined;
  if ('resolve' in spec) return spec.resolve(parseInput(spec.schema, raw));
  return parseInput(spec, raw);
}

/** The signature of the function {@link jsonRoutes} returns. */
export type AddJsonRoute = <
  P extends Params | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | null = null,
  A = undefined,
>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  spec: JsonRouteSpec<P, Q, B, R, A>,
  handler: (
    input: RouteInput<P, Q, B, A>,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<R extends z.ZodType ? z.input<R> : void>,
) => void;

/**
 * Adds routes to `app` that parse their path, query and body (in that order) with the schemas they
 * declare in the OpenAPI document, run their handler on them, and send its answer checked against
 * `response`.
 */
export function jsonRoutes(app: FastifyInstance, ctx: Pick<UsersContext, 'clock'>): AddJsonRoute {
  return (method, url, spec, handler) => {
    const status = spec.status ?? 200;
    const given: Params | undefined = spec.params;
    const params = given && 'resolve' in given ? given.schema : given;
    const response: z.ZodType | null = spec.response;
    app.route({
      method,
      url,
      ...openApi({
        ...(spec.security === undefined ? {} : { security: spec.security }),
        params,
        query: spec.query,
        body: spec.body,
        responses: { [status]: response },
      }),
      ...(spec.bodyLimit === undefined ? {} : { bodyLimit: spec.bodyLimit }),
      handler: async (request, reply) => {
        if (spec.noStore) reply.header('cache-control', 'no-store');
        if (spec.limiter) await admit(ctx, spec.limiter, request.ip);
        const caller = spec.authenticate ? await spec.authenticate(request) : undefined;
        const input = {
          caller,
          params: await parseParams(spec.params, request.params),
          query: spec.query ? parseInput(spec.query, request.query) : undefined,
          body: spec.body ? parseInput(spec.body, request.body) : undefined,
        } as Parameters<typeof handler>[0];
        const answer = await handler(input, request, reply);
        if (response === null) return reply.code(status).send();
        return sendOutput(reply, status, response, answer);
      },
    });
  };
}
