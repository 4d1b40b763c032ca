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
import type { Deps } from './deps.ts';
import { registerHealthRoutes } from './http/health.ts';
import { createLogger } from './http/logger.ts';
import { createHttpServer } from './http/server.ts';
import { registerGitAuthRoutes } from './git-auth/routes.ts';
import { registerInvitationAdminRoutes, registerInvitationPublicRoutes } from './invitations/routes.ts';
import { registerLoginRoutes } from './login/routes.ts';
import { registerOrganisationRoutes } from './organisations/routes.ts';
import { registerTermsAdminRoutes, registerTermsPublicRoutes } from './terms/routes.ts';
import { registerUserRoutes } from './users/routes.ts';
import { createSecretBox } from './sso/secret-box.ts';
import { registerSsoRoutes } from './sso/routes.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  logger?: Logger | false;
  identityAdmin?: IdentityAdminClient;
  oauth2Admin?: OAuth2AdminClient;
  identityPublic?: IdentityPublicClient;
  gitHost?: GitHostClient;
  /**
   * Where invitation mail is queued. Defaults to the `@acme/mail` outbox on `db` (its migrations
   * must have run: `start` runs them); `npm start` passes the process's one mailer.
   */
  mailer?: Mailer;
}

export interface UsersApp {
  /** Browser-facing: /login/*, /terms/*, /git-auth/*, /invitations/status. */
  public: FastifyInstance;
  /** Operator-only: /admin/*. Never exposed beyond the operator's network. */
  admin: FastifyInstance;
}

const PUBLIC_BODY_LIMIT = 16 * 1024;
const ADMIN_BODY_LIMIT = 64 * 1024;

/** Builds the user service's two HTTP servers without listening. */
export async function createApp(options: AppOptions): Promise<UsersApp> {
  const { config } = options;
  const logger = createLogger(options.logger, config.logLevel, 'users');
  const deps: Deps = {
    config,
    db: typed<UsersDb>(options.db),
    clock: options.clock ?? systemClock,
    identityAdmin:
      options.identityAdmin ?? createIdentityAdminClient(config.identityAdminUrl, config.upstreamTimeoutMs),
    oauth2Admin:
      options.oauth2Admin ?? createOAuth2AdminClient(config.oauth2AdminUrl, config.upstreamTimeoutMs),
    identityPublic:
      options.identityPublic ??
      createIdentityPublicClient(config.identityPublicUrl, config.upstreamTimeoutMs),
    gitHost: options.gitHost ?? createGitHostClient(config.git, config.upstreamTimeoutMs),
    mailer: options.mailer ?? createMailer({ db: options.db, clock: options.clock ?? systemClock }),
    secretBox: createSecretBox(config.ssoSecretKey),
  };

  const publicApp = createHttpServer({
    logger: logger.child({ api: 'public' }),
    bodyLimit: PUBLIC_BODY_LIMIT,
    trustProxy: config.trustProxy,
  });
  await publicApp.register(cors, {
    origin: config.appOrigins,
    credentials: true,
    methods: ['GET', 'POST'],
    allowedHeaders: ['Content-Type', 'Authorization'],
    maxAge: 600,
  });
  registerLoginRoutes(publicApp, deps);
  registerTermsPublicRoutes(publicApp, deps);
  registerGitAuthRoutes(publicApp, deps);
  registerInvitationPublicRoutes(publicApp, deps);
  registerHealthRoutes(publicApp, deps.db);

  const adminApp = createHttpServer({
    logger: logger.child({ api: 'admin' }),
    bodyLimit: ADMIN_BODY_LIMIT,
    trustProxy: false,
  });
  registerOrganisationRoutes(adminApp, deps);
  registerUserRoutes(adminApp, deps);
  registerInvitationAdminRoutes(adminApp, deps);
  registerTermsAdminRoutes(adminApp, deps);
  registerSsoRoutes(adminApp, deps);
  registerHealthRoutes(adminApp, deps.db);

  return { public: publicApp, admin: adminApp };
}
