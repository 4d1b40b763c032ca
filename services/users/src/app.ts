import { TRACE_CONTEXT_HEADERS } from '@acme/service-kit/tracing-gate';
import cors from '@fastify/cors';
import type { Database } from '@acme/db';
import { typed } from '@acme/db';
import { systemClock } from '@acme/db/clock';
import type { Clock } from '@acme/db/clock';
import { createMailer } from '@acme/mail';
import type { Mailer } from '@acme/mail';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createIdentityAdminClient } from './clients/identity-admin.ts';
import type { IdentityAdminClient } from './clients/identity-admin.ts';
import { createGitHostClient } from './clients/git-host.ts';
import type { GitHostClient } from './clients/git-host.ts';
import { createIdentityPublicClient } from './clients/identity-public.ts';
import type { IdentityPublicClient } from './clients/identity-public.ts';
import { createOAuth2AdminClient } from './clients/oauth2-admin.ts';
import type { OAuth2AdminClient } from './clients/oauth2-admin.ts';
import type { Config } from './config.ts';
import type { UsersDb } from './db-types.ts';
import type { UsersContext } from './context.ts';
import { registerAdminGuard } from '@acme/service-kit/admin-access';
import { attachMetrics, createServiceMetrics, type ServiceMetrics } from '@acme/service-kit/metrics';
import { refuseOpaqueOrigins } from '@acme/service-kit/origin';
import { AppError } from './http/errors.ts';
import { registerHealthRoutes } from './http/health.ts';
import { createLogger } from './http/logger.ts';
import { createHttpServer } from './http/server.ts';
import { registerConnectedAppRoutes } from './connected-apps/routes.ts';
import { registerGitAuthRoutes } from './git-auth/routes.ts';
import { registerApiClientAdminRoutes } from './api-clients/routes.ts';
import { createOAuth2ClientsAdmin } from './clients/oauth2-clients.ts';
import { registerInvitationAdminRoutes, registerInvitationPublicRoutes } from './invitations/routes.ts';
import { registerLoginAdminRoutes, registerLoginRoutes } from './login/routes.ts';
import { createAgentClient } from './clients/agent.ts';
import { createMicrosoftClient } from './m365/microsoft.ts';
import type { MicrosoftClient } from './m365/microsoft.ts';
import { registerM365AdminRoutes, registerM365Routes } from './m365/routes.ts';
import { registerOrganisationRoutes } from './organisations/routes.ts';
import { registerTermsAdminRoutes, registerTermsPublicRoutes } from './onboarding/routes.ts';
import { registerUserRoutes } from './admin-users/routes.ts';
import { createSecretBox } from '@acme/service-kit/secret-box';
import { registerSsoRoutes } from './sso/routes.ts';
import { registerSignUpAdminRoutes } from './signup/routes.ts';
import { registerConsoleRoutes } from './console/routes.ts';
import { registerWebhookAdminRoutes } from './webhooks/routes.ts';
import { registerScimRoutes, scimCallCounter, scimFrameworkError } from './scim/routes.ts';
import {
  registerConsoleRateLimits,
  registerTrustedNetworkAdminRoutes,
  registerTrustedNetworkRoutes,
} from './console/networks-routes.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  logger?: Logger | false;
  identityAdmin?: IdentityAdminClient;
  oauth2Admin?: OAuth2AdminClient;
  identityPublic?: IdentityPublicClient;
  gitHost?: GitHostClient;
  microsoft?: MicrosoftClient;
  /**
   * Where invitation mail is queued. Defaults to the `@acme/mail` outbox on `db` (its migrations
   * must have run: `start` runs them); `npm start` passes the process's one mailer.
   */
  mailer?: Mailer;
}

export interface UsersApp {
  /** Browser-facing: /login/*, /terms/*, /git-auth/*, /invitations/status; /scim/v2 for directories. */
  public: FastifyInstance;
  /** Operator-only: /admin/*. Never exposed beyond the operator's network. */
  admin: FastifyInstance;
  /** This instance's Prometheus registry (served on the management listener). */
  metrics: ServiceMetrics;
  /** What the routes were built with (the process's background jobs use the same). */
  context: UsersContext;
}

const PUBLIC_BODY_LIMIT = 16 * 1024;
const ADMIN_BODY_LIMIT = 64 * 1024;

/** Builds the user service's two HTTP servers without listening. */
export async function createApp(options: AppOptions): Promise<UsersApp> {
  const { config } = options;
  const logger = createLogger(options.logger, config.logLevel, 'users');
  const metrics = createServiceMetrics('users', { db: options.db });
  const ctx: UsersContext = {
    config,
    db: typed<UsersDb>(options.db),
    clock: options.clock ?? systemClock,
    identityAdmin:
      options.identityAdmin ??
      createIdentityAdminClient(config.identityAdminUrl, config.upstreamTimeoutMs, config.identityAdminKey),
    oauth2Admin:
      options.oauth2Admin ??
      createOAuth2AdminClient(config.oauth2AdminUrl, config.upstreamTimeoutMs, config.oauth2AdminKey),
    oauth2Clients: createOAuth2ClientsAdmin(
      config.oauth2AdminUrl,
      config.upstreamTimeoutMs,
      config.oauth2AdminKey,
    ),
    identityPublic:
      options.identityPublic ??
      createIdentityPublicClient(config.identityPublicUrl, config.upstreamTimeoutMs),
    gitHost: options.gitHost ?? createGitHostClient(config.git, config.upstreamTimeoutMs),
    mailer: options.mailer ?? createMailer({ db: options.db, clock: options.clock ?? systemClock }),
    secretBox: createSecretBox(config.ssoSecretKeys),
  };

  const publicApp = createHttpServer({
    logger: logger.child({ api: 'public' }),
    bodyLimit: PUBLIC_BODY_LIMIT,
    trustProxy: config.trustProxy,
    overload: config.overload,
    frameworkErrorFor: scimFrameworkError,
    openapi: {
      title: 'User service: public API',
      description:
        'Sign-in configuration and consent (/login), terms, invitations, git authorisation, the signed-in person (/me), the organisation console (/console, bearer access token), Microsoft 365 (/m365) and SCIM 2.0 (/scim/v2, SCIM token).',
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An access token of the authorization server.',
        },
        microsoft: { type: 'http', scheme: 'bearer', description: 'A Microsoft Entra token.' },
        scimToken: { type: 'http', scheme: 'bearer', description: "An organisation's SCIM token." },
      },
    },
  });
  await publicApp.register(cors, {
    origin: config.appOrigins,
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Content-Type', 'Authorization', ...TRACE_CONTEXT_HEADERS],
    maxAge: 600,
  });
  refuseOpaqueOrigins(
    publicApp,
    () => new AppError('FORBIDDEN', 'Requests from an opaque origin (Origin: null) are not accepted.'),
  );
  registerLoginRoutes(publicApp, ctx);
  registerTermsPublicRoutes(publicApp, ctx);
  registerGitAuthRoutes(publicApp, ctx);
  registerConnectedAppRoutes(publicApp, ctx);
  registerInvitationPublicRoutes(publicApp, ctx);
  registerConsoleRateLimits(publicApp, ctx);
  registerConsoleRoutes(publicApp, ctx);
  registerTrustedNetworkRoutes(publicApp, ctx);
  // SCIM 2.0 for organisations' directories: bearer tokens, its own body limit and error schema.
  registerScimRoutes(publicApp, ctx, scimCallCounter(metrics));
  registerM365Routes(publicApp, {
    ...ctx,
    microsoft: options.microsoft ?? createMicrosoftClient(config, ctx.clock),
    agent: createAgentClient(config.agentUrl, config.upstreamTimeoutMs, logger),
  });
  registerHealthRoutes(publicApp, ctx.db);

  const adminApp = createHttpServer({
    logger: logger.child({ api: 'admin' }),
    bodyLimit: ADMIN_BODY_LIMIT,
    trustProxy: false,
    overload: config.overload,
    openapi: {
      title: 'User service: operator API',
      description:
        'Organisations, users, invitations, terms, API clients, single sign-on, self sign-up, trusted networks and token claims, for the operator and the other services (operator network only).',
      securitySchemes: { admin: { type: 'http', scheme: 'bearer', description: 'The operator key.' } },
    },
  });
  registerAdminGuard(
    adminApp,
    config.admin,
    (r) => new AppError(r.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', r.message),
  );
  registerOrganisationRoutes(adminApp, ctx);
  registerUserRoutes(adminApp, ctx);
  registerLoginAdminRoutes(adminApp, ctx);
  registerInvitationAdminRoutes(adminApp, ctx);
  registerTermsAdminRoutes(adminApp, ctx);
  registerApiClientAdminRoutes(adminApp, ctx);
  registerSsoRoutes(adminApp, ctx);
  registerSignUpAdminRoutes(adminApp, ctx);
  registerM365AdminRoutes(adminApp, ctx);
  registerTrustedNetworkAdminRoutes(adminApp, ctx);
  registerWebhookAdminRoutes(adminApp, ctx);
  registerHealthRoutes(adminApp, ctx.db);
  attachMetrics(metrics, { public: publicApp, admin: adminApp });

  return { public: publicApp, admin: adminApp, metrics, context: ctx };
}
