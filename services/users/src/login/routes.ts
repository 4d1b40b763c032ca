import type { FastifyInstance } from 'fastify';
import { hasOwnKey } from '@acme/service-kit/prototype';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { jsonRoutes } from '../http/route.ts';
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
  const route = jsonRoutes(app, ctx);
  const limiter = rateLimiter(
    ctx,
    'login-config',
    ctx.config.loginConfigRateLimit,
    ctx.config.loginConfigRateWindowSeconds,
  );

  route(
    'GET',
    '/login/config',
    { query: loginConfigQuerySchema, response: loginConfigSchema, limiter, noStore: true },
    async ({ query }) => loginConfigFor(ctx.db, query.emailAddress),
  );

  route(
    'POST',
    '/login/consent',
    { body: consentBodySchema, response: redirectSchema },
    async ({ body }, request) => ({ redirectTo: await acceptConsent(ctx, body, request.ip) }),
  );

  // The consent screen of an application that is not the platform's own, for the signed-in person.
  route(
    'GET',
    '/login/consent/request',
    { query: consentScreenQuerySchema, response: consentScreenSchema, noStore: true },
    async ({ query }, request) => {
      const caller = await currentCaller(ctx, request);
      return consentScreen(ctx, caller, query.consentChallenge);
    },
  );

  // Device sign-in (RFC 8628) from the app's device page: the user code, then the consent shown.
  route(
    'POST',
    '/login/device/verify',
    { body: deviceVerifyBodySchema, response: redirectSchema, noStore: true },
    async ({ body }) => ({
      redirectTo: await ctx.oauth2Admin.acceptDeviceRequest(body.deviceChallenge, body.userCode),
    }),
  );

  route(
    'GET',
    '/login/device/consent',
    { query: deviceConsentQuerySchema, response: deviceConsentSchema, noStore: true },
    async ({ query }) => {
      const lookup = await ctx.oauth2Admin.getConsentRequest(query.consentChallenge);
      if (lookup.kind === 'handled') {
        throw new AppError('CONSENT_REQUEST_NOT_FOUND', 'The consent request was already answered.');
      }
      const client = lookup.request.client;
      return {
        clientId: client?.client_id ?? '',
        clientName: client?.client_name ?? client?.client_id ?? '',
        requestedScope: lookup.request.requested_scope ?? [],
        authenticationMode:
          lookup.request.context?.authenticationMode === 'm365' ? ('m365' as const) : ('ory' as const),
      };
    },
  );

  route(
    'POST',
    '/login/device/deny',
    { body: deviceDenyBodySchema, response: redirectSchema, noStore: true },
    async ({ body }, request) => ({
      redirectTo: await denyDeviceConsent(ctx, body.consentChallenge, {
        identitySessionId: body.identitySessionId,
        bearer: bearerToken(request.headers.authorization),
      }),
    }),
  );

  route('POST', '/login/logout', { body: logoutBodySchema, response: redirectSchema }, async ({ body }) => ({
    redirectTo: await ctx.oauth2Admin.acceptLogoutRequest(body.logoutChallenge),
  }));
}

/**
 * Operator network only: the authorization server reads a grant's claims here at sign-in (consent
 * skipped for first-party clients) and at every refresh. 403 means the grant must end.
 */
export function registerLoginAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  jsonRoutes(app, ctx)(
    'POST',
    '/admin/token-claims',
    { body: tokenClaimsBodySchema, response: tokenClaimsSchema, noStore: true },
    async ({ body }) => {
      const { claims } = hasOwnKey(body, 'method')
        ? await tokenClaimsFor(ctx, {
            method: 'm365',
            userId: await userOfIdentity(ctx, body.subject),
            clientAddress: body.clientAddress,
          })
        : await tokenClaimsFor(ctx, body);
      return claims;
    },
  );
}
