import { openApi } from '@acme/service-kit/openapi';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { counter, type Counter, type ServiceMetrics } from '@acme/service-kit/metrics';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import { rateLimiter } from '../http/rate-limit.ts';
import { jsonNamesPrototypeKey, PROTOTYPE_KEY_MESSAGE } from '@acme/service-kit/prototype';
import { currentRequestId } from '@acme/service-kit/request-id';
import { discovery, SCHEMA } from './discovery.ts';
import { ScimError, scimNotFound, toScimErrorResponse } from './errors.ts';
import { scimFilter } from './filter.ts';
import {
  createGroup,
  deleteGroup,
  getGroup,
  groupInputSchema,
  listGroups,
  patchGroup,
  replaceGroup,
} from './groups.ts';
import { MAX_SCIM_PAGE_SIZE, SCIM_BODY_LIMIT } from './limits.ts';
import type { ListPage, ScimScope } from './scope.ts';
import { authenticateScimToken } from '../directory/tokens.ts';
import {
  createScimUser,
  deleteScimUser,
  getUser,
  listUsers,
  patchScimUser,
  replaceScimUser,
  userInputSchema,
} from './users.ts';
import { patchRequestSchema } from './patch.ts';
import {
  scimDiscoverySchema,
  scimErrorSchema,
  scimGroupSchema,
  scimIdParamsSchema,
  scimListQuerySchema,
  scimListSchema,
  scimUserSchema,
} from './wire.ts';

/**
 * The SCIM 2.0 server (RFC 7644) at `/scim/v2` on the public port, for an organisation's
 * directory (Entra ID, Okta…): bearer token only (cookies are never read), the token's organisation
 * only, SCIM's error schema for every failure, 1 MiB bodies, pages of at most 100, and a rate limit
 * per token (SCIM_RATE_LIMIT_PER_TOKEN per SCIM_RATE_WINDOW_SECONDS).
 */
const SCIM_PREFIX = '/scim/v2';

/** The router's refusals (a path parameter over 100 characters, a malformed URL) under /scim/v2. */
export function scimFrameworkError(url: string, error: unknown) {
  if (url !== SCIM_PREFIX && !url.startsWith(`${SCIM_PREFIX}/`) && !url.startsWith(`${SCIM_PREFIX}?`)) {
    return undefined;
  }
  const { status, headers, body } = toScimErrorResponse(error);
  return { status, headers: { ...headers, 'content-type': 'application/scim+json; charset=utf-8' }, body };
}

const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
const BEARER = /^Bearer\s+(\S{1,512})$/i;

const listQuerySchema = scimListQuerySchema;

function listPage(query: z.output<typeof listQuerySchema>): ListPage {
  // RFC 7644 §3.4.2.4: startIndex below 1 counts as 1; a negative count as 0.
  const startIndex = Math.min(Math.max(query.startIndex ?? 1, 1), 1_000_000_000);
  const count = Math.min(Math.max(query.count ?? MAX_SCIM_PAGE_SIZE, 0), MAX_SCIM_PAGE_SIZE);
  return { startIndex, count };
}

function readQuery(request: FastifyRequest) {
  const parsed = listQuerySchema.safeParse(request.query);
  if (!parsed.success) throw new ScimError(400, 'filter, startIndex or count is malformed.', 'invalidValue');
  return parsed.data;
}

const excludesMembers = (query: { excludedAttributes?: string | undefined }) =>
  (query.excludedAttributes ?? '')
    .split(',')
    .some(
      (a) =>
        a.trim().toLowerCase() === 'members' ||
        a.trim().toLowerCase() === `${SCHEMA.group}:members`.toLowerCase(),
    );

const unauthenticated = (detail: string) =>
  new ScimError(401, detail, undefined, { 'WWW-Authenticate': 'Bearer realm="scim"' });

type ScimCalls = Counter<'method' | 'route' | 'outcome'>;

/** `users_scim_requests_total`: every SCIM call by method, route pattern and outcome. */
export function scimCallCounter(metrics: ServiceMetrics): ScimCalls {
  return counter(
    metrics,
    'users_scim_requests_total',
    'SCIM calls by method, route pattern (never the raw path) and outcome: success, unauthenticated (no or a bad token), throttled, refused (any other 4xx), error (5xx).',
    ['method', 'route', 'outcome'],
  );
}

/** The outcome label of a SCIM answer's status. */
function scimOutcome(status: number): string {
  if (status < 400) return 'success';
  if (status === 401) return 'unauthenticated';
  if (status === 429) return 'throttled';
  return status < 500 ? 'refused' : 'error';
}

export function registerScimRoutes(app: FastifyInstance, ctx: UsersContext, calls: ScimCalls): void {
  const limiter = rateLimiter(ctx, 'scim-token', ctx.config.scim.perToken, ctx.config.scim.windowSeconds);
  const docs = discovery(ctx.config.scim.baseUrl);
  const scopes = new WeakMap<FastifyRequest, ScimScope>();

  void app.register(
    async (scim) => {
      // application/scim+json and application/json alike; an empty body (a DELETE some clients
      // send with a content type) is no body.
      const json = scim.getDefaultJsonParser('error', 'error');
      scim.removeContentTypeParser('application/json');
      scim.addContentTypeParser(
        ['application/scim+json', 'application/json'],
        { parseAs: 'string', bodyLimit: SCIM_BODY_LIMIT },
        (request, body, done) => {
          if (body === '') return done(null, undefined);
          // The parser refuses a `__proto__` or `constructor.prototype` key as it refuses malformed
          // JSON; SCIM names that refusal for what it is.
          json(request, body as string, (error, value) =>
            error && jsonNamesPrototypeKey(body as string)
              ? done(new ScimError(400, PROTOTYPE_KEY_MESSAGE, 'invalidValue'), undefined)
              : done(error, value),
          );
        },
      );
      scim.addHook('onRoute', (route) => {
        route.bodyLimit = SCIM_BODY_LIMIT;
      });
      scim.addHook('onResponse', async (request, reply) => {
        calls.inc({
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          outcome: scimOutcome(reply.statusCode),
        });
      });

      scim.setErrorHandler((error, request, reply) => {
        const { status, headers, body } = toScimErrorResponse(error);
        if (status >= 500)
          request.log.error({ err: error, path: request.routeOptions.url }, 'scim request failed');
        return reply.code(status).headers(headers).header('content-type', SCIM_CONTENT_TYPE).send(body);
      });
      scim.setNotFoundHandler((_request, reply) => {
        const { status, body } = toScimErrorResponse(scimNotFound());
        return reply.code(status).header('content-type', SCIM_CONTENT_TYPE).send(body);
      });

      // Rate limit first (by the presented token's digest: never the token itself), then the token.
      scim.addHook('onRequest', async (request) => {
        const match = BEARER.exec(request.headers.authorization ?? '');
        if (!match) throw unauthenticated('A SCIM token is required (Authorization: Bearer).');
        const digest = createHash('sha256').update(match[1]!, 'utf8').digest('base64url');
        const decision = await limiter.hit(digest, ctx.clock.now());
        if (!decision.allowed) {
          throw new ScimError(429, 'Too many SCIM requests for this token. Try again later.', undefined, {
            'Retry-After': String(decision.retryAfterSec),
          });
        }
        const token = await authenticateScimToken(ctx, match[1]!);
        if (!token) throw unauthenticated('The SCIM token is not valid or has been revoked.');
        scopes.set(request, {
          organisationId: token.organisationId,
          tokenId: token.id,
          baseUrl: ctx.config.scim.baseUrl,
          origin: {
            actorKind: 'directory',
            actorId: token.id,
            ip: request.ip,
            requestId: currentRequestId() ?? String(request.id),
          },
        });
      });

      const scopeOf = (request: FastifyRequest): ScimScope => scopes.get(request)!;
      const send = (reply: FastifyReply, status: number, body: unknown, location?: string) => {
        reply.code(status).header('content-type', SCIM_CONTENT_TYPE);
        if (location !== undefined) reply.header('location', location);
        return reply.send(body);
      };
      const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
      // SCIM's media type, SCIM's error body, the bearer token of the organisation's directory.
      const doc = (schema: {
        params?: z.ZodObject;
        query?: z.ZodObject;
        body?: z.ZodType;
        responses: Record<number, z.ZodType | null>;
      }) =>
        openApi({
          security: 'scimToken',
          ...schema,
          bodyType: 'application/scim+json',
          responses: {
            default: { content: { 'application/scim+json': scimErrorSchema } },
            ...Object.fromEntries(
              Object.entries(schema.responses).map(([status, body]) => [
                status,
                body === null ? null : { content: { 'application/scim+json': body } },
              ]),
            ),
          },
        });
      const byId = { params: scimIdParamsSchema };
      const userList = scimListSchema(scimUserSchema);
      const groupList = scimListSchema(scimGroupSchema);
      const discoveryList = scimListSchema(scimDiscoverySchema);

      /** A resource type's writes: create (201 with its location), replace, patch, delete by id. */
      const registerWrites = (resource: {
        path: string;
        input: z.ZodType;
        output: z.ZodType;
        create: (
          ctx: UsersContext,
          scope: ScimScope,
          body: unknown,
        ) => Promise<{ meta: { location: string } }>;
        replace: (ctx: UsersContext, scope: ScimScope, id: string, body: unknown) => Promise<unknown>;
        patch: (ctx: UsersContext, scope: ScimScope, id: string, body: unknown) => Promise<unknown>;
        remove: (ctx: UsersContext, scope: ScimScope, id: string) => Promise<void>;
      }) => {
        const { path, input, output } = resource;
        scim.post(path, doc({ body: input, responses: { 201: output } }), async (request, reply) => {
          const created = await resource.create(ctx, scopeOf(request), request.body);
          return send(reply, 201, created, created.meta.location);
        });
        scim.put(
          `${path}/:id`,
          doc({ ...byId, body: input, responses: { 200: output } }),
          async (request, reply) =>
            send(reply, 200, await resource.replace(ctx, scopeOf(request), idOf(request), request.body)),
        );
        scim.patch(
          `${path}/:id`,
          doc({ ...byId, body: patchRequestSchema, responses: { 200: output } }),
          async (request, reply) =>
            send(reply, 200, await resource.patch(ctx, scopeOf(request), idOf(request), request.body)),
        );
        scim.delete(`${path}/:id`, doc({ ...byId, responses: { 204: null } }), async (request, reply) => {
          await resource.remove(ctx, scopeOf(request), idOf(request));
          return reply.code(204).send();
        });
      };

      // Discovery (RFC 7644 §4)
      scim.get(
        '/ServiceProviderConfig',
        doc({ responses: { 200: scimDiscoverySchema } }),
        async (_request, reply) => send(reply, 200, docs.serviceProviderConfig),
      );
      scim.get('/ResourceTypes', doc({ responses: { 200: discoveryList } }), async (_request, reply) =>
        send(reply, 200, listOf(docs.resourceTypes)),
      );
      scim.get(
        '/ResourceTypes/:id',
        doc({ ...byId, responses: { 200: scimDiscoverySchema } }),
        async (request, reply) => {
          const found = docs.resourceTypes.find((r) => r.id === idOf(request));
          if (!found) throw scimNotFound();
          return send(reply, 200, found);
        },
      );
      scim.get('/Schemas', doc({ responses: { 200: discoveryList } }), async (_request, reply) =>
        send(reply, 200, listOf(docs.schemas)),
      );
      scim.get(
        '/Schemas/:id',
        doc({ ...byId, responses: { 200: scimDiscoverySchema } }),
        async (request, reply) => {
          const found = docs.schemas.find((s) => s.id === idOf(request));
          if (!found) throw scimNotFound();
          return send(reply, 200, found);
        },
      );

      // Users
      scim.get(
        '/Users',
        doc({ query: scimListQuerySchema, responses: { 200: userList } }),
        async (request, reply) => {
          const query = readQuery(request);
          return send(
            reply,
            200,
            await listUsers(ctx, scopeOf(request), scimFilter('User', query.filter), listPage(query)),
          );
        },
      );
      scim.get('/Users/:id', doc({ ...byId, responses: { 200: scimUserSchema } }), async (request, reply) =>
        send(reply, 200, await getUser(ctx, scopeOf(request), idOf(request))),
      );
      registerWrites({
        path: '/Users',
        input: userInputSchema,
        output: scimUserSchema,
        create: createScimUser,
        replace: replaceScimUser,
        patch: patchScimUser,
        remove: deleteScimUser,
      });

      // Groups
      scim.get(
        '/Groups',
        doc({ query: scimListQuerySchema, responses: { 200: groupList } }),
        async (request, reply) => {
          const query = readQuery(request);
          const groups = await listGroups(
            ctx,
            scopeOf(request),
            scimFilter('Group', query.filter),
            listPage(query),
            !excludesMembers(query),
          );
          return send(reply, 200, groups);
        },
      );
      scim.get(
        '/Groups/:id',
        doc({ ...byId, query: scimListQuerySchema, responses: { 200: scimGroupSchema } }),
        async (request, reply) => {
          const query = readQuery(request);
          return send(
            reply,
            200,
            await getGroup(ctx, scopeOf(request), idOf(request), !excludesMembers(query)),
          );
        },
      );
      registerWrites({
        path: '/Groups',
        input: groupInputSchema,
        output: scimGroupSchema,
        create: createGroup,
        replace: replaceGroup,
        patch: patchGroup,
        remove: deleteGroup,
      });
    },
    { prefix: SCIM_PREFIX },
  );
}

function listOf<T>(resources: T[]) {
  return {
    schemas: [SCHEMA.listResponse],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
