import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { findOrganisation } from '../organisations/repository.ts';
import {
  apiClientIdParamsSchema,
  apiClientListSchema,
  apiClientSchema,
  createApiClientSchema,
  createdApiClientSchema,
  listApiClientsQuerySchema,
  revokeApiClientSchema,
} from './schemas.ts';
import { createApiClient, listApiClients, revokeApiClient } from './service.ts';

export function registerApiClientAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/admin/api-clients',
    openApi({ body: createApiClientSchema, responses: { 201: createdApiClientSchema } }),
    async (request, reply) => {
      const input = parseInput(createApiClientSchema, request.body);
      const created = await createApiClient(ctx, input);
      request.log.info(
        { apiClientId: created.id, organisationId: created.organisationId },
        'API client created',
      );
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 201, createdApiClientSchema, created);
    },
  );

  app.get(
    '/admin/api-clients',
    openApi({ query: listApiClientsQuerySchema, responses: { 200: apiClientListSchema } }),
    async (request, reply) => {
      const { organisationId } = parseInput(listApiClientsQuerySchema, request.query);
      if (!(await findOrganisation(ctx.db, organisationId))) {
        throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
      }
      return sendOutput(reply, 200, apiClientListSchema, {
        apiClients: await listApiClients(ctx.db, organisationId),
      });
    },
  );

  app.post(
    '/admin/api-clients/:id/revoke',
    openApi({
      params: apiClientIdParamsSchema,
      body: revokeApiClientSchema.optional(),
      responses: { 200: apiClientSchema },
    }),
    async (request, reply) => {
      const { id } = parseInput(apiClientIdParamsSchema, request.params);
      const { actorEmail } = parseInput(revokeApiClientSchema, request.body ?? {});
      if (!uuidSchema.safeParse(id).success)
        throw new AppError('API_CLIENT_NOT_FOUND', 'No API client has this id.');
      const revoked = await revokeApiClient(ctx, id, actorEmail);
      request.log.info({ apiClientId: revoked.id }, 'API client revoked');
      return sendOutput(reply, 200, apiClientSchema, revoked);
    },
  );
}
