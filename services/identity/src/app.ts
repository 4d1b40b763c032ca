import { registerOpenApi, type OpenApiOptions } from '@acme/service-kit/openapi';
import { kratosErrorSchema } from './errors/identity-error.ts';
import { TRACE_CONTEXT_HEADERS } from '@acme/service-kit/tracing-gate';
import { shedFastifyRequests, startOverloadGuard } from '@acme/service-kit/overload';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import type { pino } from 'pino';
import { sql } from 'kysely';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, typed, type Database } from '@acme/db';
import { systemClock, type Clock } from '@acme/db/clock';
import type { Config } from './config.ts';
import type { IdentityContext, Mailer } from './context.ts';
import type { IdentityDb } from './db/schema.ts';
import { IdentityError, errors } from './errors/identity-error.ts';
import { createFlowEngine } from './flows/engine.ts';
import { registerAdminRecoveryRoutes } from './flows/kinds/recovery.ts';
import { enabledStrategies, flowKinds, knownStrategies } from './flows/registry.ts';
import { registerFlowRoutes } from './flows/routes.ts';
import { isSamlAcsPath, registerSamlMetadataRoute } from './http/saml-metadata-route.ts';
import { oidcServices } from './strategies/oidc/oidc-login.ts';
import { SAML_METADATA_PATH, spMetadata } from './strategies/saml/service-provider.ts';
import { registerKratosSurface } from './http/kratos-surface.ts';
import type { Registry } from './flows/strategy.ts';
import { decodedBodyOf, registerRawBodyParser } from './http/body.ts';
import { sendError } from './http/responder.ts';
import { registerMessageLocalisation } from './flows/locale.ts';
import { registerAdminRoutes } from './identities/admin-routes.ts';
import { registerAdminGuard } from '@acme/service-kit/admin-access';
import { proxyTrust } from '@acme/service-kit/proxy-trust';
import { refusedInput } from '@acme/service-kit/input';
import { refuseOpaqueOrigins } from '@acme/service-kit/origin';
import { registerRequestId, requestIdOptions } from '@acme/service-kit/request-id';
import { hangUpWhenClosing } from '@acme/service-kit/shutdown';
import { requestSummary } from '@acme/service-kit/logging';
import { SCHEMA_ID, identitySchema } from './identities/schema.ts';
import { createHydraClient, type HydraClient } from './oauth2/hydra.ts';
import { SESSION_CHANGES_CHANNEL, SessionCache } from './sessions/cache.ts';
import { LocalWritesPlugin, registerLocalWrites } from './sessions/local-writes.ts';
import { createPasswordHasher } from './password/hasher.ts';
import { createIdentityMetrics } from './metrics.ts';
import { instrumentFastify } from '@acme/service-kit/metrics';
import { registerSessionRoutes } from './sessions/routes.ts';
import { registerAdminSessionRoutes } from './sessions/admin-routes.ts';
import { registerCourierRoutes } from './courier/admin-routes.ts';
import { registerBatchImportRoute } from './identities/batch-import.ts';
import { registerSecurityEventRoutes } from './identities/security-event-routes.ts';
import { registerLockoutAdminRoutes } from './throttle/admin-routes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Errors on this route send browsers to the error UI instead of answering JSON. */
    browserErrors?: boolean;
  }
}

export type { Mailer } from './context.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  mailer?: Mailer;
  logger?: pino.Logger | false;
  hydra?: HydraClient;
  /** The methods the service knows per flow kind (default: `knownStrategies`); `config.methods` picks the enabled ones. */
  strategies?: Registry;
}

export interface IdentityApp {
  public: FastifyInstance;
  admin: FastifyInstance;
  ctx: IdentityContext;
  close(): Promise<void>;
}

/** Never log query strings: they carry logout tokens and challenges. */
const serializers = { req: requestSummary };

/** The listeners' OpenAPI documents: our additions only; Kratos's own document covers the rest. */
const DOCUMENTS = {
  public: {
    title: 'Identity service: public API (additions to Kratos)',
    description:
      "Routes Kratos's public API does not have: the single sign-on providers' browser callbacks (OpenID Connect, SAML) and the settings flow's return address. Kratos's published document describes the rest.",
  },
  admin: {
    title: 'Identity service: admin API (additions to Kratos)',
    description:
      "Routes Kratos's admin API does not have: security events, sign-in facts, lockout reset, account reclaim and single sign-on link upkeep (operator network only). Kratos's published document describes the rest.",
  },
} satisfies Record<string, Omit<OpenApiOptions, 'version'>>;

function baseServer(opts: AppOptions, document: Omit<OpenApiOptions, 'version'>): FastifyInstance {
  const options: FastifyServerOptions = {
    bodyLimit: opts.config.bodyLimit,
    trustProxy: proxyTrust(opts.config.trustProxy),
    return503OnClosing: true,
    ...requestIdOptions(),
  };
  const loggerInstance = opts.logger
    ? (opts.logger.child({}, { serializers }) as FastifyBaseLogger)
    : undefined;
  const app = (
    loggerInstance ? Fastify({ ...options, loggerInstance }) : Fastify({ ...options, logger: false })
  ) as FastifyInstance;
  registerRequestId(app);
  registerOpenApi(app, { ...document, version: '1', errorSchema: kratosErrorSchema });
  hangUpWhenClosing(app);
  return app;
}

export async function createApp(opts: AppOptions): Promise<IdentityApp> {
  const { config } = opts;
  const clock = opts.clock ?? systemClock;
  const sessionCache = new SessionCache({ ...config.sessionCache, clock });
  const passwords = createPasswordHasher(config.hashPool);
  const ctx: IdentityContext = {
    config,
    db: typed<IdentityDb>(opts.db).withPlugin(new LocalWritesPlugin()),
    clock,
    sessionCache,
    hydra: opts.hydra ?? createHydraClient(config.oauth2AdminUrl, fetch, config.oauth2AdminKey),
    mailer:
      opts.mailer ??
      ({
        async enqueue(msg) {
          if (opts.logger)
            opts.logger.warn({ subject: msg.subject }, 'no mailer configured: message dropped');
        },
      } satisfies Mailer),
    passwords,
    metrics: createIdentityMetrics({ db: opts.db, passwordPool: passwords.pool }),
  };

  const pub = baseServer(opts, DOCUMENTS.public);
  const admin = baseServer(
    {
      ...opts,
      config: { ...config, bodyLimit: Math.max(config.bodyLimit, 64 * 1024) },
    },
    DOCUMENTS.admin,
  );

  instrumentFastify(pub, ctx.metrics.service, 'public');
  instrumentFastify(admin, ctx.metrics.service, 'admin');
  // Past capacity, new requests get a quick 503 with Retry-After; /health/* is always answered.
  const overload = startOverloadGuard(config.overload);
  for (const app of [pub, admin]) {
    shedFastifyRequests(app, overload, () => errors.overloadedProcess().body());
    registerLocalWrites(app, sessionCache);
    registerRawBodyParser(app);
    registerMessageLocalisation(app, ctx);
    await app.register(cookie);
    app.setErrorHandler(async (err, req, reply) => {
      if (err instanceof IdentityError)
        return sendError(ctx, req, reply, err, req.routeOptions.config?.browserErrors === true);
      const status = (err as { statusCode?: number }).statusCode;
      if (status && status >= 400 && status < 500) {
        return sendError(
          ctx,
          req,
          reply,
          new IdentityError(status, { reason: (err as Error).message }),
          false,
        );
      }
      if (isDatabaseUnavailable(err)) {
        req.log.warn({ err: { message: (err as Error).message } }, 'database unavailable');
        reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        return sendError(ctx, req, reply, errors.databaseUnavailable(), false);
      }
      req.log.error({ err }, 'unhandled error');
      return sendError(ctx, req, reply, new IdentityError(500), false);
    });
    // NUL / lone surrogates / prototype keys in the query, path or body: a 400 before any handler
    // (the body again where a route decodes it: http/body.ts).
    app.addHook('preHandler', async (req) => {
      const refused = refusedInput(req.query, req.params, decodedBodyOf(req));
      if (refused) throw errors.badRequest(refused);
    });
    app.addHook('onSend', async (_req, reply) => {
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
    });
    app.setNotFoundHandler(async (req, reply) =>
      sendError(
        ctx,
        req,
        reply,
        new IdentityError(404, { reason: 'Unable to find the requested route.' }),
        false,
      ),
    );
    app.get('/health/alive', async () => ({ status: 'ok' }));
    app.get('/health/ready', async (_req, reply) => {
      try {
        await sql`select 1`.execute(ctx.db);
        return { status: 'ok' };
      } catch {
        return reply.code(503).send({ errors: { database: 'not reachable' } });
      }
    });
    app.get('/schemas', async () => [{ id: SCHEMA_ID, schema: identitySchema }]);
    app.get('/schemas/:id', async (req, reply) => {
      const { id } = req.params as { id: string };
      if (id !== SCHEMA_ID && id !== Buffer.from(SCHEMA_ID).toString('base64url')) {
        throw new IdentityError(404, { reason: 'Unable to find the requested identity schema.' });
      }
      return reply.send(identitySchema);
    });
  }

  await pub.register(cors, {
    origin: config.corsOrigins,
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Content-Type',
      'Accept',
      'Authorization',
      // whoami right after a change asks for a fresh answer (sessions/current.ts).
      'Cache-Control',
      'X-CSRF-Token',
      'X-Session-Token',
      'Cookie',
      ...TRACE_CONTEXT_HEADERS,
    ],
    exposedHeaders: ['Content-Type', 'Set-Cookie'],
  });
  refuseOpaqueOrigins(
    pub,
    () =>
      errors.csrf(
        'The request came from an opaque origin (Origin: null), which no allow-list can vouch for.',
      ),
    // The SAML ACS is a cross-site POST by design, proven by its signed answer and flow (strategies/saml).
    isSamlAcsPath,
  );
  const engine = createFlowEngine(
    ctx,
    flowKinds,
    enabledStrategies(opts.strategies ?? knownStrategies, config.methods),
  );
  registerFlowRoutes(pub, ctx, engine);
  if (config.methods.includes('saml'))
    registerSamlMetadataRoute(pub, {
      path: SAML_METADATA_PATH,
      provider: (id) => oidcServices(ctx).directory.get(id),
      metadata: (provider) => spMetadata(config, provider),
    });
  registerSessionRoutes(pub, ctx);
  registerKratosSurface(pub, admin);
  registerAdminGuard(admin, config.admin, (r) => new IdentityError(r.status, { reason: r.message }));
  registerAdminRecoveryRoutes(admin, ctx, engine);
  registerAdminRoutes(admin, ctx);
  registerAdminSessionRoutes(admin, ctx);
  registerCourierRoutes(admin, ctx);
  registerBatchImportRoute(admin, ctx);
  registerLockoutAdminRoutes(admin, ctx);
  registerSecurityEventRoutes(admin, ctx);

  // The cache serves only while change notices arrive: it starts empty and off, turns on once the
  // channel is listened to, and is emptied and turned off whenever the listening connection is lost.
  const listener =
    config.sessionCache.ttlMs > 0
      ? await opts.db.listen(SESSION_CHANGES_CHANNEL, {
          notice: (payload) => sessionCache.notice(payload),
          ready: () => sessionCache.listening(true),
          lost: (err) => {
            sessionCache.listening(false);
            if (opts.logger) opts.logger.warn({ err }, 'session change notices lost: session cache off');
          },
        })
      : undefined;

  await Promise.all([pub.ready(), admin.ready()]);
  return {
    public: pub,
    admin,
    ctx,
    async close() {
      overload.stop();
      await Promise.all([pub.close(), admin.close()]);
      sessionCache.listening(false);
      await listener?.close();
      ctx.metrics.close();
    },
  };
}
