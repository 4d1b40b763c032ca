import type { Database } from '@acme/db';
import { systemClock, type Clock } from '@acme/db/clock';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import pino, { type Logger } from 'pino';
import { createAdapterRegistry } from './adapter/postgres-adapter.ts';
import { createAdminServer } from './admin/server.ts';
import { createClaimsStore } from './claims.ts';
import { createClaimsSource } from './claims-source.ts';
import type { OAuth2Config } from './config.ts';
import type { OAuth2Runtime } from './context.ts';
import { createTokenVerifier } from './introspection.ts';
import { logoutEndpointMiddleware } from './interactions/logout.ts';
import { resumeGuard } from './interactions/resume-verifier.ts';
import { loadKeyMaterial } from './keys.ts';
import { createProvider, ROUTES } from './provider.ts';
import { publicHttp } from './public/http.ts';
import { offlineAccessPrompt } from './public/offline-access.ts';
import { userinfo } from './public/userinfo.ts';

export interface CreateAppOptions {
  config: OAuth2Config;
  db: Database;
  clock?: Clock;
  logger?: Logger | false;
}

export interface OAuth2App {
  /** The oidc-provider Koa app: mount with `http.createServer(provider.callback())`. */
  provider: Provider;
  admin: FastifyInstance;
  runtime: OAuth2Runtime;
}

export const REDACT = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    '*.token',
    '*.code',
    '*.code_verifier',
    '*.access_token',
    '*.refresh_token',
    '*.id_token',
    '*.xsrf',
  ],
  remove: true,
};

/** Builds the public (oidc-provider) and admin (Fastify) apps without listening. */
export async function createApp(opts: CreateAppOptions): Promise<OAuth2App> {
  const { config, db } = opts;
  const clock = opts.clock ?? systemClock;
  const logger =
    opts.logger === false
      ? pino({ enabled: false })
      : (opts.logger ?? pino({ name: 'oauth2', level: 'info', redact: REDACT }));
  const keys = await loadKeyMaterial(db);
  const adapters = createAdapterRegistry({ db, clock, graceSeconds: config.refreshGraceSeconds });
  const claims = createClaimsStore({ db, clock, adapters });
  const claimsSource = config.usersAdminUrl
    ? createClaimsSource(config.usersAdminUrl, config.upstreamTimeoutMs)
    : undefined;
  if (!claimsSource) {
    logger.warn(
      'USERS_ADMIN_URL is not set: refreshes do not re-check the identity session or re-read claims',
    );
  }
  const base = { config, clock, adapters, claims, claimsSource, keys, logger };
  const provider = createProvider(base);
  const runtime: OAuth2Runtime = { ...base, provider };
  const verifier = createTokenVerifier(runtime);

  provider.use(publicHttp(logger));
  provider.use(userinfo(runtime, verifier, ROUTES.userinfo));
  provider.use(offlineAccessPrompt(ROUTES.authorization));
  provider.use(resumeGuard(runtime));
  provider.use(logoutEndpointMiddleware(runtime));

  const admin = createAdminServer(runtime, verifier);
  return { provider, admin, runtime };
}
