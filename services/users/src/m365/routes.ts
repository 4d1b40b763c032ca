import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UsersContext } from '../context.ts';
import { z } from 'zod';
import { bearerToken } from '../http/bearer.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { jsonRoutes } from '../http/route.ts';
import {
  activateSubscription,
  applyWebhook,
  listOrgAdminReview,
  m365Login,
  type M365Context,
} from './service.ts';
import { acceptM365DeviceConsent, acceptM365DeviceLogin } from './device.ts';

/** A JWT-sized opaque string; an empty Graph token counts as none (Teams: on-behalf-of). */
const tokenString = z.string().min(1).max(8192);
const optionalGraphToken = z
  .union([tokenString, z.literal(''), z.null()])
  .optional()
  .transform((v) => (v ? v : undefined));

const loginBodySchema = z.object({ graphAccessToken: optionalGraphToken }).strict();
const activateBodySchema = z
  .object({ token: z.string().min(1).max(4096), graphAccessToken: optionalGraphToken })
  .strict();
const webhookBodySchema = z
  .object({
    id: z.string().min(1).max(100),
    subscriptionId: z.string().min(1).max(100),
    action: z.string().min(1).max(50),
    planId: z.string().max(100).optional(),
    quantity: z.number().int().min(0).optional(),
  })
  .loose();

const challenge = z.string().trim().min(1).max(2048);
const deviceLoginBodySchema = z
  .object({ loginChallenge: challenge, application: z.string().trim().min(1).max(255) })
  .strict();
const deviceConsentBodySchema = z.object({ consentChallenge: challenge }).strict();
const webhookAnswerSchema = z.object({ applied: z.boolean() });
const redirectResponseSchema = z.object({ redirectTo: z.string().min(1) });

const loginResponseSchema = z.object({ accessToken: z.string(), expiresIn: z.number().int() });
const activationResponseSchema = z.object({
  organisationId: z.uuid(),
  subscriptionId: z.string(),
  planId: z.string(),
  created: z.boolean(),
});

function bearerOf(request: FastifyRequest): string {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) {
    throw new AppError('UNAUTHENTICATED', 'A Microsoft token is required (Authorization: Bearer).');
  }
  return token;
}

export function registerM365Routes(app: FastifyInstance, ctx: M365Context): void {
  const route = jsonRoutes(app, ctx);
  const microsoft = { security: 'microsoft', authenticate: bearerOf } as const;
  route(
    'POST',
    '/m365/login',
    { ...microsoft, body: loginBodySchema.optional(), response: loginResponseSchema, noStore: true },
    async ({ caller: bearer, body }, request) => m365Login(ctx, bearer, body?.graphAccessToken, request.ip),
  );

  // Device sign-in (RFC 8628) for a Microsoft 365 person: Bearer = our access token from /m365/login.
  route(
    'POST',
    '/m365/device/login',
    { ...microsoft, body: deviceLoginBodySchema, response: redirectResponseSchema, noStore: true },
    async ({ caller: bearer, body }, request) => ({
      redirectTo: await acceptM365DeviceLogin(ctx, bearer, body.loginChallenge, body.application, request.ip),
    }),
  );

  route(
    'POST',
    '/m365/device/consent',
    { ...microsoft, body: deviceConsentBodySchema, response: redirectResponseSchema, noStore: true },
    async ({ caller: bearer, body }, request) => ({
      redirectTo: await acceptM365DeviceConsent(ctx, bearer, body.consentChallenge, request.ip),
    }),
  );

  app.post(
    '/m365/marketplace/activate',
    openApi({
      security: 'microsoft',
      body: activateBodySchema.optional(),
      responses: { 200: activationResponseSchema },
    }),
    async (request, reply) => {
      const bearer = bearerOf(request);
      const body = parseInput(activateBodySchema, request.body ?? {});
      const result = await activateSubscription(ctx, bearer, body.token, body.graphAccessToken);
      request.log.info(
        {
          organisationId: result.organisationId,
          subscriptionId: result.subscriptionId,
          created: result.created,
        },
        'marketplace subscription activated',
      );
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, activationResponseSchema, result);
    },
  );

  route(
    'POST',
    '/m365/marketplace/webhook',
    {
      security: 'microsoft',
      authenticate: (request) => ctx.microsoft.verifyMarketplaceCaller(bearerOf(request)),
      body: webhookBodySchema,
      response: webhookAnswerSchema,
    },
    async ({ body: event }, request) => {
      const result = await applyWebhook(ctx, event);
      request.log.info(
        { subscriptionId: event.subscriptionId, action: event.action, applied: result.applied },
        'marketplace webhook',
      );
      return { applied: result.applied };
    },
  );
}

const adminReviewSchema = z.object({
  grants: z.array(
    z.object({
      userId: z.string(),
      organisationId: z.string(),
      email: z.string(),
      purchaserEmails: z.array(z.string()),
      foundAt: z.string(),
    }),
  ),
});

/**
 * Operator network only. `GET /admin/m365/org-admin-review`: what the issue-20 repair migration
 * found, the org-admins of marketplace organisations who bought none of its subscriptions (grants
 * the activation made before it checked the purchaser). For review; nothing is demoted.
 */
export function registerM365AdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get(
    '/admin/m365/org-admin-review',
    openApi({ responses: { 200: adminReviewSchema } }),
    async (_request, reply) => {
      const rows = await listOrgAdminReview(ctx.db);
      return sendOutput(reply, 200, adminReviewSchema, {
        grants: rows.map((r) => ({
          userId: r.user_id,
          organisationId: r.organisation_id,
          email: r.email,
          purchaserEmails: r.purchaser_emails,
          foundAt: r.found_at.toISOString(),
        })),
      });
    },
  );
}
