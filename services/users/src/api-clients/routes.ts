import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { jsonRoutes } from '../http/route.ts';
import { uuidSchema } from '../http/schemas.ts';
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
  const route = jsonRoutes(app, ctx);
  route(
    'POST',
    '/admin/api-clients',
    { body: createApiClientSchema, status: 201, response: createdApiClientSchema, noStore: true },
    async ({ body }, request) => {
      const created = await createApiClient(ctx, body);
      request.log.info(
        { apiClientId: created.id, organisationId: created.organisationId },
        'API client created',
      );
      return created;
    },
  );

  route(
    'GET',
    '/admin/api-clients',
    { query: listApiClientsQuerySchema, response: apiClientListSchema },
    async ({ query: { organisationId } }) => {
      if (!(await findOrganisation(ctx.db, organisationId))) {
        throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
      }
      return { apiClients: await listApiClients(ctx.db, organisationId) };
    },
  );

  route(
    'POST',
    '/admin/api-clients/:id/revoke',
    { params: apiClientIdParamsSchema, body: revokeApiClientSchema.optional(), response: apiClientSchema },
    async ({ params: { id }, body }, request) => {
      if (!uuidSchema.safeParse(id).success)
        throw new AppError('API_CLIENT_NOT_FOUND', 'No API client has this id.');
      const revoked = await revokeApiClient(ctx, id, body?.actorEmail);
      request.log.info({ apiClientId: revoked.id }, 'API client revoked');
      return revoked;
    },
  );
}
