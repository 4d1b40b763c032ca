import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UsersContext } from '../context.ts';
import { z } from 'zod';
import { bearerToken } from '../http/bearer.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { activateSubscription, applyWebhook, m365Login, type M365Context } from './service.ts';
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
  app.post(
    '/m365/login',
    openApi({
      security: 'microsoft',
      body: loginBodySchema.optional(),
      responses: { 200: loginResponseSchema },
    }),
    async (request, reply) => {
      const bearer = bearerOf(request);
      const body = parseInput(loginBodySchema, request.body ?? {});
      const result = await m365Login(ctx, bearer, body.graphAccessToken, request.ip);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, loginResponseSchema, result);
    },
  );

  // Device sign-in (RFC 8628) for a Microsoft 365 person: Bearer = our access token from /m365/login.
  app.post(
    '/m365/device/login',
    openApi({
      security: 'microsoft',
      body: deviceLoginBodySchema,
      responses: { 200: redirectResponseSchema },
    }),
    async (request, reply) => {
      const bearer = bearerOf(request);
      const body = parseInput(deviceLoginBodySchema, request.body);
      const redirectTo = await acceptM365DeviceLogin(
        ctx,
        bearer,
        body.loginChallenge,
        body.application,
        request.ip,
      );
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, redirectResponseSchema, { redirectTo });
    },
  );

  app.post(
    '/m365/device/consent',
    openApi({
      security: 'microsoft',
      body: deviceConsentBodySchema,
      responses: { 200: redirectResponseSchema },
    }),
    async (request, reply) => {
      const bearer = bearerOf(request);
      const body = parseInput(deviceConsentBodySchema, request.body);
      const redirectTo = await acceptM365DeviceConsent(ctx, bearer, body.consentChallenge, request.ip);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, redirectResponseSchema, { redirectTo });
    },
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

  app.post(
    '/m365/marketplace/webhook',
    openApi({ security: 'microsoft', body: webhookBodySchema, responses: { 200: webhookAnswerSchema } }),
    async (request, reply) => {
      await ctx.microsoft.verifyMarketplaceCaller(bearerOf(request));
      const event = parseInput(webhookBodySchema, request.body);
      const result = await applyWebhook(ctx, event);
      request.log.info(
        { subscriptionId: event.subscriptionId, action: event.action, applied: result.applied },
        'marketplace webhook',
      );
      return sendOutput(reply, 200, webhookAnswerSchema, { applied: result.applied });
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
      const rows = await ctx.db
        .selectFrom('m365_org_admin_review')
        .selectAll()
        .orderBy('organisation_id')
        .orderBy('email')
        .execute();
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
