import { openApi } from '@acme/service-kit/openapi';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { findOrganisation, insertOrganisation, listOrganisations } from './repository.ts';
import {
  createOrganisationSchema,
  organisationIdParamsSchema,
  organisationListSchema,
  organisationSchema,
} from './schemas.ts';

export function registerOrganisationRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/admin/organisations',
    openApi({ body: createOrganisationSchema, responses: { 201: organisationSchema } }),
    async (request, reply) => {
      const input = parseInput(createOrganisationSchema, request.body);
      const organisation = await insertOrganisation(ctx.db, randomUUID(), input, ctx.clock.now());
      request.log.info({ organisationId: organisation.id }, 'organisation created');
      return sendOutput(reply, 201, organisationSchema, organisation);
    },
  );

  app.get(
    '/admin/organisations',
    openApi({ responses: { 200: organisationListSchema } }),
    async (_request, reply) => {
      return sendOutput(reply, 200, organisationListSchema, {
        organisations: await listOrganisations(ctx.db),
      });
    },
  );

  app.get(
    '/admin/organisations/:id',
    openApi({ params: organisationIdParamsSchema, responses: { 200: organisationSchema } }),
    async (request, reply) => {
      const { id } = parseInput(organisationIdParamsSchema, request.params);
      const organisation = uuidSchema.safeParse(id).success ? await findOrganisation(ctx.db, id) : null;
      if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
      return sendOutput(reply, 200, organisationSchema, organisation);
    },
  );
}
