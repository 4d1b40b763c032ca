import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import formbody from '@fastify/formbody';
import { registerAdminGuard } from '@acme/service-kit/admin-access';
import { refusedInput } from '@acme/service-kit/input';
import { registerRequestId, requestIdOptions } from '@acme/service-kit/request-id';
import { hangUpWhenClosing } from '@acme/service-kit/shutdown';
import type { OAuth2Runtime } from '../context.ts';
import { asOAuth2Error, errorHeaders, OAuth2Error, toOAuth2Body } from '../errors.ts';
import type { TokenVerifier } from '../introspection.ts';
import { KeyRevocationRefused } from '../keys.ts';
import { requireChallenge } from '../interactions/challenge.ts';
import { registerClientRoutes } from './clients.ts';
import { VERSION } from '../public/meta.ts';
import { listConsentSessions, revokeConsentSessions } from './consent-sessions.ts';
import { FederatedTokenBody, FederatedTokenSchema, issueFederatedToken } from './federated-token.ts';
import { openApi, registerOpenApi } from '@acme/service-kit/openapi';
import { z } from 'zod';
import { acceptConsentRequest, getConsentRequest, rejectConsentRequest } from '../interactions/consent.ts';
import { acceptLoginRequest, getLoginRequest, rejectLoginRequest } from '../interactions/login.ts';
import { acceptLogoutRequest, getLogoutRequest, rejectLogoutRequest } from '../interactions/logout.ts';

/**
 * Hydra's admin API (never exposed beyond the operator's network): login/consent/logout
 * requests and token introspection. Every error answers `{error, error_description}`.
 */
export interface AdminOperations {
  rotateKeys(): Promise<{ kid: string; kids: string[]; published: (string | undefined)[] }>;
  revokeKey(kid: string): Promise<{ kid: string; published: (string | undefined)[] }>;
  /** Hydra's device user-code accept (RFC 8628 verification step). */
  acceptDevice(challenge: string, body: unknown): Promise<{ redirect_to: string }>;
  /** Counts an access token issued by the federated-token endpoint (in the tokens-issued metric). */
  federatedTokenIssued(): void;
  /** Resolves when the database answers (readiness), else rejects. */
  checkDatabase(): Promise<void>;
}

/** The OAuth 2.0 error body (`toOAuth2Body`). */
const oauth2ErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  redirect_to: z.string().optional(),
});

const rotatedKeysSchema = z.object({
  kid: z.string(),
  kids: z.array(z.string()),
  jwks_kids: z.array(z.string()),
});
const revokeKeyBodySchema = z.object({ kid: z.string().min(1).max(200) });
const revokedKeySchema = z.object({ kid: z.string(), jwks_kids: z.array(z.string()) });

export function createAdminServer(
  rt: OAuth2Runtime,
  verifier: TokenVerifier,
  ops: AdminOperations,
): FastifyInstance {
  const app = Fastify({
    // Fastify's own request lines (info) would carry query strings with challenges: keep warn+.
    loggerInstance: rt.logger.child({ server: 'oauth2-admin' }, { level: 'warn' }) as FastifyBaseLogger,
    bodyLimit: rt.config.bodyLimitBytes,
    ...requestIdOptions(),
  });
  registerRequestId(app);
  registerOpenApi(app, {
    title: 'Authorization server: admin API (additions to Hydra)',
    description:
      "Routes Hydra's admin API does not have: signing-key rotation and revocation, and access tokens for people a federated sign-in (Microsoft 365) verified (operator network only). Hydra's published document describes the rest.",
    version: '1',
    errorSchema: oauth2ErrorSchema,
  });
  hangUpWhenClosing(app);
  void app.register(formbody, { bodyLimit: rt.config.bodyLimitBytes });
  // Hydra clients may send `Content-Type: application/json` with no body (logout accept).
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    return json(req, body as string, done);
  });

  app.setErrorHandler((err, _req, reply) => {
    const mapped = asOAuth2Error(err);
    if (mapped.status >= 500) rt.logger.error({ err: { message: (err as Error).message } }, 'admin error');
    return sendError(reply, mapped);
  });
  app.setNotFoundHandler((_req, reply) => sendError(reply, OAuth2Error.notFound()));
  // NUL / lone surrogates / prototype keys anywhere in the body, query or path: a 400 before any
  // handler.
  app.addHook('preHandler', async (req) => {
    const refused = refusedInput(req.body, req.query, req.params);
    if (refused) throw OAuth2Error.invalidRequest(refused);
  });
  registerAdminGuard(
    app,
    rt.config.admin,
    (r) =>
      new OAuth2Error(r.status, r.status === 401 ? 'request_unauthorized' : 'request_forbidden', r.message),
  );
  app.addHook('onResponse', async (req, reply) => {
    rt.logger.debug(
      {
        method: req.method,
        path: req.routeOptions.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'admin request',
    );
  });

  const base = '/admin/oauth2/auth/requests';
  const q = (query: unknown, name: string) =>
    requireChallenge((query as Record<string, unknown>)?.[name], name);

  app.get(`${base}/login`, async (req) => getLoginRequest(rt, q(req.query, 'login_challenge')));
  app.put(`${base}/login/accept`, async (req) =>
    acceptLoginRequest(rt, q(req.query, 'login_challenge'), req.body),
  );
  app.put(`${base}/login/reject`, async (req) =>
    rejectLoginRequest(rt, q(req.query, 'login_challenge'), req.body),
  );

  app.get(`${base}/consent`, async (req) => getConsentRequest(rt, q(req.query, 'consent_challenge')));
  app.put(`${base}/consent/accept`, async (req) =>
    acceptConsentRequest(rt, q(req.query, 'consent_challenge'), req.body),
  );
  app.put(`${base}/consent/reject`, async (req) =>
    rejectConsentRequest(rt, q(req.query, 'consent_challenge'), req.body),
  );

  app.put(`${base}/device/accept`, async (req) =>
    ops.acceptDevice(q(req.query, 'device_challenge'), req.body),
  );

  app.get(`${base}/logout`, async (req) => getLogoutRequest(rt, q(req.query, 'logout_challenge')));
  app.put(`${base}/logout/accept`, async (req) => acceptLogoutRequest(rt, q(req.query, 'logout_challenge')));
  app.put(`${base}/logout/reject`, async (req, reply) => {
    await rejectLogoutRequest(rt, q(req.query, 'logout_challenge'));
    return reply.status(204).send();
  });

  // Consent sessions of a subject (a person's connected applications) and their revocation.
  app.get('/admin/oauth2/auth/sessions/consent', async (req) =>
    listConsentSessions(rt, (req.query as Record<string, unknown>)?.subject),
  );
  app.delete('/admin/oauth2/auth/sessions/consent', async (req, reply) => {
    await revokeConsentSessions(rt, (req.query ?? {}) as Record<string, unknown>);
    return reply.code(204).send();
  });

  app.post('/admin/oauth2/introspect', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const token = body.token;
    if (typeof token !== 'string' || token.length === 0 || token.length > 8192) {
      throw OAuth2Error.invalidRequest('The token parameter is missing or invalid.');
    }
    const scope = typeof body.scope === 'string' ? body.scope : undefined;
    reply.header('Cache-Control', 'no-store');
    return verifier.introspect(token, scope);
  });

  // Operator: a new signing key signs from now on; the old ones stay in the JWKS until their tokens expire.
  app.post('/admin/keys/rotate', openApi({ responses: { 200: rotatedKeysSchema } }), async (_req, reply) => {
    const rotated = await ops.rotateKeys();
    rt.logger.info({ kids: rotated.kids }, 'signing keys rotated');
    reply.header('Cache-Control', 'no-store');
    // `kid`: the new access-token key; `kids`: the new key of every algorithm (ID tokens' too).
    return rotatedKeysSchema.parse({ kid: rotated.kid, kids: rotated.kids, jwks_kids: rotated.published });
  });
  // Operator, emergency: a signing key that may have leaked leaves the JWKS now, and every
  // instance refuses the tokens it signed (the current key must be rotated out first).
  const revokeKey = openApi({
    body: revokeKeyBodySchema,
    bodyType: 'application/json',
    responses: { 200: revokedKeySchema },
  });
  app.post('/admin/keys/revoke', revokeKey, async (req, reply) => {
    const parsed = revokeKeyBodySchema.safeParse(req.body ?? {});
    if (!parsed.success) throw OAuth2Error.invalidRequest('The kid parameter is missing or invalid.');
    const { kid } = parsed.data;
    try {
      const revoked = await ops.revokeKey(kid);
      rt.logger.warn({ kid: revoked.kid }, 'signing key revoked');
      reply.header('Cache-Control', 'no-store');
      return revokedKeySchema.parse({ kid: revoked.kid, jwks_kids: revoked.published });
    } catch (error) {
      if (!(error instanceof KeyRevocationRefused)) throw error;
      throw error.reason === 'unknown'
        ? OAuth2Error.notFound(error.message)
        : new OAuth2Error(409, 'key_in_use', error.message);
    }
  });
  registerClientRoutes(app, rt);
  app.post(
    '/admin/oauth2/federated-tokens',
    openApi({ body: FederatedTokenBody, responses: { 200: FederatedTokenSchema } }),
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      const issued = await issueFederatedToken(rt, req.body);
      ops.federatedTokenIssued();
      return issued;
    },
  );

  app.get('/health/alive', async () => ({ status: 'ok' }));
  // Ready only while the database answers, as on the public port and the management listener.
  app.get('/health/ready', async (_req, reply) => {
    try {
      await ops.checkDatabase();
    } catch {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .send({ errors: { database: 'not reachable' } });
    }
    return { status: 'ok' };
  });
  app.get('/version', async () => ({ version: VERSION }));

  return app;
}

function sendError(reply: FastifyReply, err: OAuth2Error) {
  return reply
    .status(err.status)
    .headers({ ...errorHeaders(err), 'Cache-Control': 'no-store' })
    .send(toOAuth2Body(err));
}
