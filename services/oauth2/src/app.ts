import { createSecretBox } from '@acme/service-kit/secret-box';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql, type Database } from '@acme/db';
import { systemClock, type Clock } from '@acme/db/clock';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import pino, { type Logger } from 'pino';
import { createAdapterRegistry } from './adapter/postgres-adapter.ts';
import { createAdminServer } from './admin/server.ts';
import { createClaimsStore } from './claims.ts';
import { createClaimsSource } from './claims-source.ts';
import type { OAuth2Config } from './config.ts';
import { ACCESS_TOKEN_RESOURCE, SUPPORTED_SCOPES, type OAuth2Runtime } from './context.ts';
import { DEVICE_GRANT, type ClientRules } from './clients/client-document.ts';
import { createMetadataDocuments, withMetadataDocuments } from './clients/metadata-documents.ts';
import { createClientStore } from './clients/client-store.ts';
import { configuredClients } from './clients/configured-clients.ts';
import { createTokenVerifier } from './introspection.ts';
import { logoutEndpointMiddleware } from './interactions/logout.ts';
import { resumeGuard } from './interactions/resume-verifier.ts';
import {
  loadKeyMaterial,
  revokedKeys,
  revokeSigningKey,
  rotateSigningKey,
  rotateSigningKeyIfDue,
  signingAlgs,
  type KeyMaterial,
} from './keys.ts';
import { createProvider, ROUTES } from './provider.ts';
import { publicHttp } from './public/http.ts';
import { refuseUnstorableInput } from './public/storable-input.ts';
import { attachMetrics, createServiceMetrics, type ServiceMetrics } from '@acme/service-kit/metrics';
import { countTokenEvents, createOAuth2Metrics } from './metrics.ts';
import { createServiceLogger } from '@acme/service-kit/logging';
import { tokenWrites } from './public/token-writes.ts';
import { offlineAccessPrompt } from './public/offline-access.ts';
import { userinfo } from './public/userinfo.ts';
import { acceptDeviceRequest, deviceEndpoints } from './device/device.ts';
import { createRateLimiter } from '@acme/db/rate-limit';
import { RATE_LIMIT_TABLE } from './migrations.ts';
import { publicMeta } from './public/meta.ts';
import { AUTHORIZATION_SERVER_METADATA, discoveryDocuments } from './public/discovery.ts';
import { REGISTRATION_ROUTE, registrationEndpoint, withRegisteredAudiences } from './public/registration.ts';

export interface CreateAppOptions {
  config: OAuth2Config;
  db: Database;
  clock?: Clock;
  logger?: Logger | false;
}

export interface OAuth2App {
  /** The current oidc-provider (rebuilt when the signing keys change). */
  readonly provider: Provider;
  /** The public app's request handler: `http.createServer(app.handler)`; follows key changes. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  admin: FastifyInstance;
  runtime: OAuth2Runtime;
  /** This instance's Prometheus registry (served on the management listener). */
  metrics: ServiceMetrics;
  /** Re-reads the signing keys (another instance may have rotated them); true when they changed. */
  reloadKeys(): Promise<boolean>;
  /** The periodic key work: a scheduled rotation when due (OAUTH2_KEY_ROTATE_EVERY), then reloadKeys. */
  maintainKeys(): Promise<boolean>;
}

const REDACT = {
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
      : (opts.logger ?? createServiceLogger('oauth2', opts.config.logLevel, { redact: REDACT.paths }));
  // A retired signing key stays published as long as a JWT it signed may still be valid.
  const retentionSeconds = Math.max(config.ttl.accessToken, config.ttl.idToken);
  const algs = signingAlgs(config.accessTokenAlg);
  // The private keys at rest: sealed with OAUTH2_KEYS_SECRET (required in production).
  const box = config.keysSecrets ? createSecretBox(config.keysSecrets) : undefined;
  const loadKeys = () => loadKeyMaterial(db, { now: clock.now(), retentionSeconds, algs, box });
  const keys = await loadKeys();
  const rules: ClientRules = {
    scopes: SUPPORTED_SCOPES,
    audiences: [ACCESS_TOKEN_RESOURCE, ...config.resourceServers],
    grants: [
      'authorization_code',
      'refresh_token',
      'client_credentials',
      ...(config.deviceClients.length > 0 ? [DEVICE_GRANT] : []),
    ],
  };
  const metadataDocuments = config.clientIdMetadataDocuments
    ? createMetadataDocuments({
        loopback: config.registration.mode === 'loopback',
        timeoutMs: config.upstreamTimeoutMs,
        rules,
        audiences: config.resourceServers,
        clock,
        logger,
      })
    : undefined;
  const adapters = withMetadataDocuments(
    withRegisteredAudiences(
      createAdapterRegistry({ db, clock, graceSeconds: config.refreshGraceSeconds }),
      db,
      config.resourceServers,
    ),
    metadataDocuments,
  );
  const claims = createClaimsStore({ db, clock, adapters });
  const claimsSource = config.usersAdminUrl
    ? createClaimsSource(config.usersAdminUrl, config.upstreamTimeoutMs, config.usersAdminKey)
    : undefined;
  if (!box) logger.warn('OAUTH2_KEYS_SECRET is not set: the signing keys are stored in clear');
  if (!claimsSource) {
    logger.warn(
      'USERS_ADMIN_URL is not set: refreshes do not re-check the identity session or re-read claims',
    );
  }
  const base = { config, clock, adapters, claims, claimsSource, logger };
  const runtime = { ...base, keys } as OAuth2Runtime;
  // A token signed with a key another instance has just rotated in makes this one re-read the keys.
  // A key revoked on any instance is refused here at once (one primary-key read per token).
  const verifier = createTokenVerifier(runtime, {
    reloadKeys: () => reloadKeys(),
    revokedKeys: (kids) => revokedKeys(db, kids),
  });
  const metrics = createServiceMetrics('oauth2', { db });
  const counters = createOAuth2Metrics(metrics);
  const knownPaths = new Set<string>([
    ...Object.values(ROUTES),
    '/.well-known/openid-configuration',
    AUTHORIZATION_SERVER_METADATA,
    REGISTRATION_ROUTE,
    '/health/alive',
    '/health/ready',
    '/version',
  ]);

  const device = config.device;
  /** Per-IP limits in windows that start at multiples of their length, shared by every instance. */
  const perIp = (scope: string, limit: number, windowSeconds: number) =>
    createRateLimiter(
      db.kysely,
      { table: RATE_LIMIT_TABLE, scope },
      { limit, windowMs: windowSeconds * 1000, windows: 'aligned' },
    );
  const limiters = {
    authorization: perIp('device-auth', device.authPerIp, device.limitWindowSeconds),
    userCode: perIp('device-user-code', device.userCodeAttemptsPerIp, device.limitWindowSeconds),
    registration: perIp('register', config.registration.perIp, config.registration.windowSeconds),
  };

  const build = (material: KeyMaterial): Provider => {
    const provider = createProvider({ ...base, keys: material });
    countTokenEvents(provider, counters);
    provider.use(publicHttp(logger, metrics, knownPaths));
    provider.use(refuseUnstorableInput());
    provider.use(publicMeta(db));
    provider.use(discoveryDocuments(config));
    provider.use(registrationEndpoint(runtime, db, limiters.registration));
    provider.use(deviceEndpoints(runtime, db, limiters));
    provider.use(tokenWrites(db, ROUTES.token));
    provider.use(userinfo(runtime, verifier, ROUTES.userinfo));
    provider.use(offlineAccessPrompt(ROUTES.authorization));
    provider.use(resumeGuard(runtime));
    provider.use(logoutEndpointMiddleware(runtime));
    return provider;
  };
  runtime.provider = build(keys);
  runtime.clients = createClientStore({
    db,
    adapters,
    clock,
    rules,
    secretGraceSeconds: config.clientSecretGraceSeconds,
    jwksUriPolicy: config.jwksUriPolicy,
    validate: (metadata) => runtime.provider.Client.validate(metadata as never),
  });
  await runtime.clients.seed(configuredClients(config));
  let handler = runtime.provider.callback();

  /** Re-reads the keys; when the signing or published keys changed, serves from a provider built with them. */
  async function reloadKeys(): Promise<boolean> {
    const material = await loadKeys();
    if (material.fingerprint === runtime.keys.fingerprint) return false;
    const provider = build(material);
    runtime.keys = material;
    runtime.provider = provider;
    handler = provider.callback();
    logger.info({ kids: material.fingerprint }, 'signing keys reloaded');
    return true;
  }

  async function rotateKeys() {
    const rotated = await rotateSigningKey(db, { now: clock.now(), retentionSeconds, algs, box });
    await reloadKeys();
    return {
      kid: rotated.kid,
      kids: rotated.kids,
      published: runtime.keys.publicJwks.keys.map((k) => k.kid),
    };
  }

  /** OAUTH2_KEY_ROTATE_EVERY: rotates when the keys are a period old (one instance per period), then re-reads. */
  async function maintainKeys(): Promise<boolean> {
    const every = config.keyRotateEverySeconds;
    if (every !== undefined) {
      const rotated = await rotateSigningKeyIfDue(db, {
        now: clock.now(),
        retentionSeconds,
        algs,
        box,
        everySeconds: every,
      });
      if (rotated) logger.info({ kids: rotated.kids }, 'signing keys rotated (OAUTH2_KEY_ROTATE_EVERY)');
    }
    return reloadKeys();
  }

  async function revokeKey(kid: string) {
    const revoked = await revokeSigningKey(db, { kid, now: clock.now(), box });
    await reloadKeys();
    return { kid: revoked.kid, published: runtime.keys.publicJwks.keys.map((k) => k.kid) };
  }

  const admin = createAdminServer(runtime, verifier, {
    rotateKeys,
    revokeKey,
    acceptDevice: (challenge, body) => acceptDeviceRequest(runtime, db, limiters.userCode, challenge, body),
    checkDatabase: async () => {
      await sql`select 1`.execute(db.kysely);
    },
    federatedTokenIssued: () => counters.tokensIssued.inc({ grant_type: 'federated' }),
  });
  attachMetrics(metrics, { admin });
  return {
    get provider() {
      return runtime.provider;
    },
    handler: (req, res) => handler(req, res),
    admin,
    runtime,
    metrics,
    reloadKeys,
    maintainKeys,
  };
}
