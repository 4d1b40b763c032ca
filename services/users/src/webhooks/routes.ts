import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UsersContext } from '../context.ts';
import { openApi } from '@acme/service-kit/openapi';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import type { Permission } from '../users/roles.ts';
import { orgParamsSchema } from '@acme/users-contract/console';
import { consoleCaller, originOf, type authoriseConsole } from '../access/auth.ts';
import { operatorOrigin, type EventOrigin } from '../events/events.ts';
import { feedCursor, parseFeedCursor, publishEvents, readFeed } from '../feed/feed.ts';
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  toWireEndpoint,
  updateEndpoint,
} from './endpoints.ts';
import { listDeliveries, redeliver } from './deliveries.ts';
import {
  deliveryPageQuerySchema,
  deliveryPageSchema,
  deliveryParamsSchema,
  endpointInputSchema,
  endpointListSchema,
  endpointParamsSchema,
  endpointPatchSchema,
  endpointSchema,
  endpointWithSecretSchema,
  feedPageSchema,
  feedQuerySchema,
  redeliverySchema,
} from '@acme/users-contract/webhooks';

/** Webhooks and the events feed are organisation settings (the org-admin's). */
const SETTINGS: Permission = 'ManageOrganisationSettings';

type Authorise = (
  request: FastifyRequest,
  permission: Permission,
  write: boolean,
) => ReturnType<typeof authoriseConsole>;

/**
 * The console's Webhooks section (issue 35): `/console/organisations/{id}/webhooks…`, and the
 * organisation's events feed, `GET /console/events?after=&limit=`.
 */
export function registerConsoleWebhookRoutes(
  app: FastifyInstance,
  ctx: UsersContext,
  authorise: Authorise,
): void {
  const base = '/console/organisations/:organisationId/webhooks';

  const organisationOf: OrganisationOf = async (request, write) => {
    const { caller, organisationId } = await authorise(request, SETTINGS, write);
    return { organisationId, origin: originOf(caller, request) };
  };
  registerEndpointBasics(app, ctx, base, organisationOf);

  const endpointIn = async (request: FastifyRequest, write: boolean) => {
    const { organisationId, origin } = await organisationOf(request, write);
    const { endpointId } = parseInput(endpointParamsSchema, request.params);
    return { organisationId, endpointId, origin };
  };

  app.get(
    `${base}/:endpointId`,
    openApi({ params: endpointParamsSchema, responses: { 200: endpointSchema } }),
    async (request, reply) => {
      const { organisationId, endpointId } = await endpointIn(request, false);
      return sendOutput(
        reply,
        200,
        endpointSchema,
        toWireEndpoint(await findEndpoint(ctx, organisationId, endpointId)),
      );
    },
  );

  app.patch(
    `${base}/:endpointId`,
    openApi({ params: endpointParamsSchema, body: endpointPatchSchema, responses: { 200: endpointSchema } }),
    async (request, reply) => {
      const { organisationId, endpointId, origin } = await endpointIn(request, true);
      const patch = parseInput(endpointPatchSchema, request.body);
      return sendOutput(
        reply,
        200,
        endpointSchema,
        await updateEndpoint(ctx, organisationId, endpointId, patch, origin),
      );
    },
  );

  app.get(
    `${base}/:endpointId/deliveries`,
    openApi({
      params: endpointParamsSchema,
      query: deliveryPageQuerySchema,
      responses: { 200: deliveryPageSchema },
    }),
    async (request, reply) => {
      const { organisationId, endpointId } = await endpointIn(request, false);
      const page = parseInput(deliveryPageQuerySchema, request.query);
      await findEndpoint(ctx, organisationId, endpointId);
      return sendOutput(reply, 200, deliveryPageSchema, await listDeliveries(ctx, endpointId, page));
    },
  );

  app.post(
    `${base}/:endpointId/deliveries/:deliveryId/redeliver`,
    openApi({ params: deliveryParamsSchema, responses: { 202: redeliverySchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, SETTINGS, true);
      const { endpointId, deliveryId } = parseInput(deliveryParamsSchema, request.params);
      await findEndpoint(ctx, organisationId, endpointId);
      return sendOutput(reply, 202, redeliverySchema, {
        delivery: await redeliver(ctx, endpointId, deliveryId),
      });
    },
  );

  /**
   * The caller's organisation's events, oldest first after the cursor: the user service's own and
   * the identity service's (relayed). `next` is always given: the cursor to ask with next time
   * (the same one while nothing new has come). A cursor of another organisation, or edited, is 400.
   */
  app.get(
    '/console/events',
    openApi({ query: feedQuerySchema, responses: { 200: feedPageSchema } }),
    async (request, reply) => {
      const caller = await consoleCaller(ctx, request);
      if (!caller.permissions.includes(SETTINGS))
        throw new AppError('PERMISSION_DENIED', `This needs the ${SETTINGS} permission.`);
      const query = parseInput(feedQuerySchema, request.query);
      const keys = ctx.config.ssoSecretKeys;
      const after =
        query.after === undefined ? 0n : parseFeedCursor(keys, caller.organisationId, query.after);
      if (after === null)
        throw new AppError(
          'INVALID_REQUEST',
          "The request is invalid: after: not a cursor of this organisation's feed",
        );
      await publishEvents(ctx.db);
      const rows = await readFeed(ctx.db, {
        organisationId: caller.organisationId,
        after,
        limit: query.limit,
      });
      const next = feedCursor(keys, caller.organisationId, rows.at(-1)?.seq ?? after);
      const link = `/console/events?${new URLSearchParams({ after: next, limit: String(query.limit) })}`;
      reply.header('link', `<${link}>; rel="next"`);
      return sendOutput(reply, 200, feedPageSchema, { events: rows.map((r) => r.event), next });
    },
  );
}

/** The operator's webhook routes on the admin API (the `webhook:*` CLI commands). */
export function registerWebhookAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const base = '/admin/organisations/:organisationId/webhooks';
  const organisation: OrganisationOf = async (request) => {
    const { organisationId } = parseInput(orgParamsSchema.passthrough(), request.params);
    const exists = await ctx.db
      .selectFrom('organisations')
      .select('id')
      .where('id', '=', organisationId)
      .executeTakeFirst();
    if (!exists) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
    return { organisationId, origin: operatorOrigin() };
  };

  registerEndpointBasics(app, ctx, base, organisation);
}

/** Where the organisation of a call comes from (the console's caller, or the operator's path), and who acts. */
type OrganisationOf = (
  request: FastifyRequest,
  write: boolean,
) => Promise<{ organisationId: string; origin: EventOrigin }>;

/** List, create, delete and rotate: the same for an org-admin in the console and for the operator. */
function registerEndpointBasics(
  app: FastifyInstance,
  ctx: UsersContext,
  base: string,
  organisationOf: OrganisationOf,
): void {
  app.get(
    base,
    openApi({ params: orgParamsSchema, responses: { 200: endpointListSchema } }),
    async (request, reply) => {
      const { organisationId } = await organisationOf(request, false);
      return sendOutput(reply, 200, endpointListSchema, {
        endpoints: await listEndpoints(ctx, organisationId),
      });
    },
  );

  app.post(
    base,
    openApi({
      params: orgParamsSchema,
      body: endpointInputSchema,
      responses: { 201: endpointWithSecretSchema },
    }),
    async (request, reply) => {
      const { organisationId, origin } = await organisationOf(request, true);
      const input = parseInput(endpointInputSchema, request.body);
      return sendOutput(
        reply,
        201,
        endpointWithSecretSchema,
        await createEndpoint(ctx, organisationId, input, origin),
      );
    },
  );

  app.delete(
    `${base}/:endpointId`,
    openApi({ params: endpointParamsSchema, responses: { 204: null } }),
    async (request, reply) => {
      const { organisationId, origin } = await organisationOf(request, true);
      const { endpointId } = parseInput(endpointParamsSchema, request.params);
      await deleteEndpoint(ctx, organisationId, endpointId, origin);
      return reply.code(204).send();
    },
  );

  app.post(
    `${base}/:endpointId/rotate-secret`,
    openApi({ params: endpointParamsSchema, responses: { 200: endpointWithSecretSchema } }),
    async (request, reply) => {
      const { organisationId, origin } = await organisationOf(request, true);
      const { endpointId } = parseInput(endpointParamsSchema, request.params);
      return sendOutput(
        reply,
        200,
        endpointWithSecretSchema,
        await rotateEndpointSecret(ctx, organisationId, endpointId, origin),
      );
    },
  );
}
