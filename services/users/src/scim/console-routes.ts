import { orgParamsSchema } from '@acme/users-contract/console';
import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UsersContext } from '../context.ts';
import { originOf, type authoriseConsole } from '../access/auth.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import type { Permission } from '../users/roles.ts';
import {
  createdScimTokenSchema,
  createScimTokenSchema,
  scimSettingsInputSchema,
  scimSettingsSchema,
  scimTokenListSchema,
  scimTokenParamsSchema,
} from './schemas.ts';
import { organisationScopeGroups, readGroupMappings, saveGroupMappings } from '../directory/settings.ts';
import { createScimToken, listScimTokens, revokeScimToken, scimEnabled } from '../directory/tokens.ts';

type Authorise = (
  request: FastifyRequest,
  permission: Permission | readonly Permission[],
  write: boolean,
) => ReturnType<typeof authoriseConsole>;

const PERMISSION: Permission = 'ManageOrganisationUsers';

/** The console's SCIM section (issue 26): tokens and the group mapping, for ManageOrganisationUsers. */
export function registerConsoleScimRoutes(
  app: FastifyInstance,
  ctx: UsersContext,
  authorise: Authorise,
): void {
  const base = '/console/organisations/:organisationId/scim';

  app.get(
    `${base}/tokens`,
    openApi({ params: orgParamsSchema, responses: { 200: scimTokenListSchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, PERMISSION, false);
      return sendOutput(reply, 200, scimTokenListSchema, {
        tokens: await listScimTokens(ctx, organisationId),
      });
    },
  );

  app.post(
    `${base}/tokens`,
    openApi({
      params: orgParamsSchema,
      body: createScimTokenSchema,
      responses: { 201: createdScimTokenSchema },
    }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const { name } = parseInput(createScimTokenSchema, request.body);
      const created = await createScimToken(
        ctx,
        organisationId,
        name,
        caller.email,
        originOf(caller, request),
      );
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 201, createdScimTokenSchema, created);
    },
  );

  app.delete(
    `${base}/tokens/:tokenId`,
    openApi({ params: scimTokenParamsSchema, responses: { 204: null } }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const { tokenId } = parseInput(scimTokenParamsSchema, request.params);
      await revokeScimToken(ctx, organisationId, tokenId, originOf(caller, request));
      return reply.code(204).send();
    },
  );

  const settings = async (organisationId: string) => ({
    enabled: await scimEnabled(ctx, organisationId),
    baseUrl: ctx.config.scim.baseUrl,
    groupMappings: await readGroupMappings(ctx.db, organisationId),
    // The mapping's choices: a mapping may only name scope groups the organisation knows.
    scopeGroups: [...(await organisationScopeGroups(ctx.db, organisationId))].sort(),
  });

  app.get(
    `${base}/settings`,
    openApi({ params: orgParamsSchema, responses: { 200: scimSettingsSchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, PERMISSION, false);
      return sendOutput(reply, 200, scimSettingsSchema, await settings(organisationId));
    },
  );

  app.put(
    `${base}/settings`,
    openApi({
      params: orgParamsSchema,
      body: scimSettingsInputSchema,
      responses: { 200: scimSettingsSchema },
    }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const { groupMappings } = parseInput(scimSettingsInputSchema, request.body);
      await saveGroupMappings(ctx, organisationId, groupMappings, originOf(caller, request));
      return sendOutput(reply, 200, scimSettingsSchema, await settings(organisationId));
    },
  );
}
