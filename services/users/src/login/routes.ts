import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import { hasOwnKey } from '@acme/service-kit/prototype';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { bearerToken } from '../http/bearer.ts';
import { acceptConsent, consentScreen, denyDeviceConsent } from './consent.ts';
import { currentCaller } from '../http/caller.ts';
import { loginConfigFor } from './login-config.ts';
import { rateLimiter } from '../http/rate-limit.ts';
import { tokenClaimsFor, userOfIdentity } from '../claims/token-claims.ts';
import {
  consentBodySchema,
  consentScreenQuerySchema,
  consentScreenSchema,
  deviceConsentQuerySchema,
  deviceConsentSchema,
  deviceDenyBodySchema,
  deviceVerifyBodySchema,
  loginConfigQuerySchema,
  loginConfigSchema,
  logoutBodySchema,
  redirectSchema,
  tokenClaimsBodySchema,
  tokenClaimsSchema,
} from './schemas.ts';

export function registerLoginRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const limiter = rateLimiter(
    ctx,
    'login-config',
    ctx.config.loginConfigRateLimit,
    ctx.config.loginConfigRateWindowSeconds,
  );

  app.get(
    '/login/config',
    openApi({ query: loginConfigQuerySchema, responses: { 200: loginConfigSchema } }),
    async (request, reply) => {
      // Counted before validation, so malformed probes use up the allowance too.
      const decision = await limiter.hit(request.ip, ctx.clock.now());
      if (!decision.allowed) {
        throw new AppError('RATE_LIMITED', 'Too many requests. Try again later.', {
          'retry-after': String(decision.retryAfterSec),
        });
      }
      const query = parseInput(loginConfigQuerySchema, request.query);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, loginConfigSchema, await loginConfigFor(ctx.db, query.emailAddress));
    },
  );

  app.post(
    '/login/consent',
    openApi({ body: consentBodySchema, responses: { 200: redirectSchema } }),
    async (request, reply) => {
      const body = parseInput(consentBodySchema, request.body);
      const redirectTo = await acceptConsent(ctx, body, request.ip);
      return sendOutput(reply, 200, redirectSchema, { redirectTo });
    },
  );

  // The consent screen of an application that is not the platform's own, for the signed-in person.
  app.get(
    '/login/consent/request',
    openApi({ query: consentScreenQuerySchema, responses: { 200: consentScreenSchema } }),
    async (request, reply) => {
      const query = parseInput(consentScreenQuerySchema, request.query);
      const caller = await currentCaller(ctx, request);
      reply.header('cache-control', 'no-store');
      return sendOutput(
        reply,
        200,
        consentScreenSchema,
        await consentScreen(ctx, caller, query.consentChallenge),
      );
    },
  );

  // Device sign-in (RFC 8628) from the app's device page: the user code, then the consent shown.
  app.post(
    '/login/device/verify',
    openApi({ body: deviceVerifyBodySchema, responses: { 200: redirectSchema } }),
    async (request, reply) => {
      const body = parseInput(deviceVerifyBodySchema, request.body);
      const redirectTo = await ctx.oauth2Admin.acceptDeviceRequest(body.deviceChallenge, body.userCode);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, redirectSchema, { redirectTo });
    },
  );

  app.get(
    '/login/device/consent',
    openApi({ query: deviceConsentQuerySchema, responses: { 200: deviceConsentSchema } }),
    async (request, reply) => {
      const query = parseInput(deviceConsentQuerySchema, request.query);
      const lookup = await ctx.oauth2Admin.getConsentRequest(query.consentChallenge);
      if (lookup.kind === 'handled') {
        throw new AppError('CONSENT_REQUEST_NOT_FOUND', 'The consent request was already answered.');
      }
      const client = lookup.request.client;
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, deviceConsentSchema, {
        clientId: client?.client_id ?? '',
        clientName: client?.client_name ?? client?.client_id ?? '',
        requestedScope: lookup.request.requested_scope ?? [],
        authenticationMode: lookup.request.context?.authenticationMode === 'm365' ? 'm365' : 'ory',
      });
    },
  );

  app.post(
    '/login/device/deny',
    openApi({ body: deviceDenyBodySchema, responses: { 200: redirectSchema } }),
    async (request, reply) => {
      const body = parseInput(deviceDenyBodySchema, request.body);
      const redirectTo = await denyDeviceConsent(ctx, body.consentChallenge, {
        identitySessionId: body.identitySessionId,
        bearer: bearerToken(request.headers.authorization),
      });
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, redirectSchema, { redirectTo });
    },
  );

  app.post(
    '/login/logout',
    openApi({ body: logoutBodySchema, responses: { 200: redirectSchema } }),
    async (request, reply) => {
      const body = parseInput(logoutBodySchema, request.body);
      const redirectTo = await ctx.oauth2Admin.acceptLogoutRequest(body.logoutChallenge);
      return sendOutput(reply, 200, redirectSchema, { redirectTo });
    },
  );
}

/**
 * Operator network only: the authorization server reads a grant's claims here at sign-in (consent
 * skipped for first-party clients) and at every refresh. 403 means the grant must end.
 */
export function registerLoginAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/admin/token-claims',
    openApi({ body: tokenClaimsBodySchema, responses: { 200: tokenClaimsSchema } }),
    async (request, reply) => {
      const body = parseInput(tokenClaimsBodySchema, request.body);
      const { claims } = hasOwnKey(body, 'method')
        ? await tokenClaimsFor(ctx, {
            method: 'm365',
            userId: await userOfIdentity(ctx, body.subject),
            clientAddress: body.clientAddress,
          })
        : await tokenClaimsFor(ctx, body);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, tokenClaimsSchema, claims);
    },
  );
}
