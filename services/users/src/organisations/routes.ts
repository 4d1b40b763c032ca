import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { jsonRoutes } from '../http/route.ts';
import { organisationPath } from './path.ts';
import { findOrganisation, insertOrganisation, listOrganisations } from './repository.ts';
import { createOrganisationSchema, organisationListSchema, organisationSchema } from './schemas.ts';

export function registerOrganisationRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const route = jsonRoutes(app, ctx);
  route(
    'POST',
    '/admin/organisations',
    { body: createOrganisationSchema, status: 201, response: organisationSchema },
    async ({ body }, request) => {
      const organisation = await insertOrganisation(ctx.db, randomUUID(), body, ctx.clock.now());
      request.log.info({ organisationId: organisation.id }, 'organisation created');
      return organisation;
    },
  );

  route('GET', '/admin/organisations', { response: organisationListSchema }, async () => ({
    organisations: await listOrganisations(ctx.db),
  }));

  route(
    'GET',
    '/admin/organisations/:id',
    { params: organisationPath, response: organisationSchema },
    async ({ params: id }) => {
      const organisation = await findOrganisation(ctx.db, id);
      if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
      return organisation;
    },
  );
}
