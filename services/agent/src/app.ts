import { TRACE_CONTEXT_HEADERS } from '@acme/service-kit/tracing-gate';
import { shedWhenOverloaded } from '@acme/service-kit/overload';
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import type { Database } from '@acme/db';
import { typed } from '@acme/db';
import { systemClock } from '@acme/db/clock';
import { registerHealthRoutes } from '@acme/service-kit/health';
import { attachMetrics, createServiceMetrics, type ServiceMetrics } from '@acme/service-kit/metrics';
import { createServiceLogger } from '@acme/service-kit/logging';
import { registerRequestId, requestIdOptions } from '@acme/service-kit/request-id';
import { hangUpWhenClosing } from '@acme/service-kit/shutdown';
import { registerAdminGuard } from '@acme/service-kit/admin-access';
import { createMicrosoftTokenVerifier, MicrosoftTokenError } from '@acme/service-kit/microsoft-token';
import { proxyTrust, type TrustProxy } from '@acme/service-kit/proxy-trust';
import { refusedInput } from '@acme/service-kit/input';
import { openApi, registerOpenApi } from '@acme/service-kit/openapi';
import { errorBodySchema } from '@acme/service-kit/errors';
import type { Clock } from '@acme/db/clock';
import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from './config.ts';
import { AppError, toErrorResponse } from './http/errors.ts';
import { RATE_LIMIT_TABLE, type AgentDb } from './migrations.ts';
import { createRateLimiter } from '@acme/db/rate-limit';
import { registerMcp } from './mcp.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  logger?: Logger | false;
}

/**
 * The body the app sends for an unregistered user: the team client's principal name and display
 * name, each empty if the client has none. So empty strings are valid; a non-empty email must look
 * like one. The caller must also prove who it is with its Microsoft token (Authorization: Bearer),
 * and only an address that token names is kept.
 */
const unregisteredUserSchema = z
  .object({
    email: z.union([z.literal(''), z.string().trim().toLowerCase().pipe(z.email().max(254))]),
    name: z.string().trim().max(200),
  })
  .strict();

const acceptedSchema = z.object({ id: z.uuid() });

const listQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }).strict();

const requestListSchema = z.object({
  requests: z.array(
    z.object({ id: z.uuid(), email: z.string(), name: z.string(), createdAt: z.iso.datetime() }),
  ),
});

/** The listeners' OpenAPI documents (`GET /openapi.json` on each). */
const DOCUMENTS = {
  public: {
    title: 'Agent service: public API',
    description:
      'Unregistered-user requests from Microsoft 365 (Microsoft token) and the MCP server for AI assistants (/mcp, an access token for this resource).',
  },
  admin: {
    title: 'Agent service: operator API',
    description: 'The recorded unregistered-user requests (operator network only).',
  },
};

const BODY_LIMIT = 8 * 1024;

/** Builds the agent service's HTTP server without listening. */
export async function createApp(
  options: AppOptions,
): Promise<{ public: FastifyInstance; admin: FastifyInstance; metrics: ServiceMetrics }> {
  const { config } = options;
  const db = typed<AgentDb>(options.db);
  const clock = options.clock ?? systemClock;
  const logger =
    options.logger === false
      ? pino({ level: 'silent' })
      : (options.logger ?? createServiceLogger('agent', config.logLevel));

  const server = (trustProxy: TrustProxy, document: (typeof DOCUMENTS)[keyof typeof DOCUMENTS]) => {
    const instance = Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      logController: new LogController({ disableRequestLogging: true }),
      bodyLimit: BODY_LIMIT,
      trustProxy: proxyTrust(trustProxy),
      return503OnClosing: true,
      ...requestIdOptions(),
    });
    registerRequestId(instance);
    registerOpenApi(instance, {
      ...document,
      version: '1',
      errorSchema: errorBodySchema,
      securitySchemes: {
        microsoft: { type: 'http', scheme: 'bearer', description: 'A Microsoft Entra token.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'An access token for this resource.' },
        admin: { type: 'http', scheme: 'bearer', description: 'The operator key.' },
      },
    });
    hangUpWhenClosing(instance);
    // Past capacity, new requests get a quick 503 with Retry-After; /health/* is always answered.
    shedWhenOverloaded(
      instance,
      config.overload,
      () =>
        toErrorResponse(
          new AppError('OVERLOADED', 'The service is busy right now. Please try again in a moment.'),
        ).body,
    );
    instance.removeContentTypeParser('text/plain');
    // NUL / lone surrogates / prototype keys anywhere in the body, query or path: a 400 before any
    // handler.
    instance.addHook('preHandler', async (request) => {
      const refused = refusedInput(request.body, request.query, request.params);
      if (refused) throw new AppError('INVALID_REQUEST', refused);
    });
    instance.setErrorHandler((error, request, reply) => {
      const { status, body, headers } = toErrorResponse(error);
      if (status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(status).headers(headers).send(body);
    });
    instance.setNotFoundHandler((request, reply) => {
      const { status, body } = toErrorResponse(
        new AppError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`),
      );
      return reply.code(status).send(body);
    });
    instance.addHook('onResponse', async (request, reply) => {
      request.log.info(
        { method: request.method, path: request.url.split('?')[0], status: reply.statusCode },
        'request',
      );
    });
    return instance;
  };
  const app = server(config.trustProxy, DOCUMENTS.public);
  await app.register(cors, {
    origin: config.appOrigins,
    credentials: true,
    methods: ['POST'],
    allowedHeaders: ['Content-Type', 'Authorization', ...TRACE_CONTEXT_HEADERS],
    maxAge: 600,
  });

  /** Per-IP limit in windows that start at multiples of their length, shared by every instance. */
  const perIp = createRateLimiter(
    db,
    { table: RATE_LIMIT_TABLE, scope: 'requests' },
    { limit: config.rateLimit, windowMs: config.rateWindowSeconds * 1000, windows: 'aligned' },
  );

  async function checkRate(ip: string): Promise<void> {
    const verdict = await perIp.hit(ip, clock.now());
    if (!verdict.allowed) {
      throw new AppError('RATE_LIMITED', 'Too many requests. Try again later.', {
        'retry-after': String(verdict.retryAfterSec),
      });
    }
  }

  registerHealthRoutes(app, db, () => new AppError('NOT_READY', 'The database is not reachable.'));

  const microsoft = createMicrosoftTokenVerifier({
    authorityUrl: config.m365.authorityUrl,
    clientId: config.m365.clientId,
    appIdUri: config.m365.appIdUri,
    timeoutMs: config.upstreamTimeoutMs,
    clock,
  });

  /** The caller's Microsoft account, from its token (verified as the user service verifies it). */
  async function microsoftCaller(authorization: string | undefined) {
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,8192})$/.exec(authorization ?? '');
    if (!match) {
      throw new AppError('UNAUTHENTICATED', 'A Microsoft token is required (Authorization: Bearer).');
    }
    try {
      return await microsoft.verifyUserToken(match[1]!);
    } catch (error) {
      if (!(error instanceof MicrosoftTokenError)) throw error;
      if (error.kind === 'unavailable') throw new AppError('UPSTREAM_ERROR', error.message);
      throw new AppError('UNAUTHENTICATED', error.message);
    }
  }

  const unregisteredUser = openApi({
    security: 'microsoft',
    body: unregisteredUserSchema,
    responses: { 202: acceptedSchema },
  });
  app.post('/misc/unregistered-user', unregisteredUser, async (request, reply) => {
    await checkRate(request.ip);
    const parsed = unregisteredUserSchema.safeParse(request.body);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      throw new AppError('INVALID_REQUEST', `The request is invalid: ${detail}`);
    }
    const caller = await microsoftCaller(request.headers.authorization);
    // An empty address is the token's; any other must be one the token names.
    const email = parsed.data.email || caller.email || '';
    if (!email || !caller.addresses.includes(email)) {
      throw new AppError(
        'FORBIDDEN',
        'The email address is not the address of the signed-in Microsoft account.',
      );
    }
    const id = randomUUID();
    await db
      .insertInto('agent_unregistered_user_requests')
      .values({ id, email, name: parsed.data.name, created_at: clock.now() })
      .execute();
    request.log.info({ requestId: id }, 'unregistered user recorded');
    return reply.code(202).send(acceptedSchema.parse({ id }));
  });

  registerMcp(app, config, clock);

  const admin = server(false, DOCUMENTS.admin);
  registerAdminGuard(
    admin,
    config.admin,
    (r) => new AppError(r.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', r.message),
  );
  registerHealthRoutes(admin, db, () => new AppError('NOT_READY', 'The database is not reachable.'));
  const listRequests = openApi({ query: listQuerySchema, responses: { 200: requestListSchema } });
  admin.get('/admin/unregistered-user-requests', listRequests, async (request) => {
    const parsed = listQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw new AppError('INVALID_REQUEST', 'limit must be a number from 1 to 1000.');
    const rows = await db
      .selectFrom('agent_unregistered_user_requests')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(parsed.data.limit)
      .execute();
    return requestListSchema.parse({
      requests: rows.map((r) => ({
        id: r.id,
        email: r.email,
        name: r.name,
        createdAt: r.created_at.toISOString(),
      })),
    });
  });

  const metrics = createServiceMetrics('agent', { db: options.db });
  attachMetrics(metrics, { public: app, admin });
  return { public: app, admin, metrics };
}
