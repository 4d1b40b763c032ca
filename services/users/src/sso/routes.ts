import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { SAML_METADATA_MAX_BYTES } from './saml-metadata.ts';
import {
  domainParamsSchema,
  domainPolicySchema,
  identityParamsSchema,
  identityPolicySchema,
  organisationParamsSchema,
  providerIdSchema,
  setBreakGlassSchema,
  providerParamsSchema,
  setSsoProviderSchema,
  ssoMemberResultSchema,
  ssoMemberSchema,
  ssoProviderConfigSchema,
  ssoProviderSchema,
} from './schemas.ts';
import {
  domainPolicy,
  getSsoProvider,
  identityPolicy,
  providerConfig,
  provisionSsoMember,
  removeSsoProvider,
  setBreakGlass,
  setSsoProvider,
} from './service.ts';

// Admin API (operator network only). Once admin callers are authenticated, these need the
// ConfigureSSO permission; the two /admin/sso/providers routes are for the identity service.

function organisationId(params: unknown): string {
  const { id } = parseInput(organisationParamsSchema, params);
  if (!uuidSchema.safeParse(id).success)
    throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  return id;
}

function providerId(params: unknown): string {
  const { provider } = parseInput(providerParamsSchema, params);
  const parsed = providerIdSchema.safeParse(provider);
  if (!parsed.success) throw new AppError('SSO_NOT_CONFIGURED', 'No single sign-on provider has this id.');
  return parsed.data;
}

export function registerSsoRoutes(app: FastifyInstance, ctx: UsersContext): void {
  // Pasted SAML metadata may be up to 1 MiB (twice that for JSON's escaping).
  app.put(
    '/admin/organisations/:id/sso',
    {
      ...openApi({
        params: organisationParamsSchema,
        body: setSsoProviderSchema,
        responses: { 200: ssoProviderSchema },
      }),
      bodyLimit: 2 * SAML_METADATA_MAX_BYTES,
    },
    async (request, reply) => {
      const id = organisationId(request.params);
      const input = parseInput(setSsoProviderSchema, request.body);
      const provider = await setSsoProvider(ctx, id, input);
      request.log.info(
        { organisationId: id, provider: provider.provider, protocol: provider.protocol },
        'sso provider set',
      );
      return sendOutput(reply, 200, ssoProviderSchema, provider);
    },
  );

  app.get(
    '/admin/organisations/:id/sso',
    openApi({ params: organisationParamsSchema, responses: { 200: ssoProviderSchema } }),
    async (request, reply) => {
      return sendOutput(
        reply,
        200,
        ssoProviderSchema,
        await getSsoProvider(ctx, organisationId(request.params)),
      );
    },
  );

  app.delete(
    '/admin/organisations/:id/sso',
    openApi({ params: organisationParamsSchema, responses: { 204: null } }),
    async (request, reply) => {
      const id = organisationId(request.params);
      await removeSsoProvider(ctx, id);
      request.log.info({ organisationId: id }, 'sso provider removed');
      return reply.code(204).send();
    },
  );

  app.put(
    '/admin/organisations/:id/sso/break-glass',
    openApi({
      params: organisationParamsSchema,
      body: setBreakGlassSchema,
      responses: { 200: ssoProviderSchema },
    }),
    async (request, reply) => {
      const id = organisationId(request.params);
      const { userId } = parseInput(setBreakGlassSchema, request.body);
      const provider = await setBreakGlass(ctx, id, userId);
      request.log.info({ organisationId: id, userId }, 'sso break-glass user set');
      return sendOutput(reply, 200, ssoProviderSchema, provider);
    },
  );

  app.delete(
    '/admin/organisations/:id/sso/break-glass',
    openApi({ params: organisationParamsSchema, responses: { 200: ssoProviderSchema } }),
    async (request, reply) => {
      const id = organisationId(request.params);
      const provider = await setBreakGlass(ctx, id, null);
      request.log.info({ organisationId: id }, 'sso break-glass user cleared');
      return sendOutput(reply, 200, ssoProviderSchema, provider);
    },
  );

  // For the identity service: whether a domain's organisation enforces SSO (and who is exempt).
  // Every domain gets the same shape, so the answer says nothing about any account.
  app.get(
    '/admin/sso/domains/:domain',
    openApi({ params: domainParamsSchema, responses: { 200: domainPolicySchema } }),
    async (request, reply) => {
      const { domain } = parseInput(domainParamsSchema, request.params);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, domainPolicySchema, await domainPolicy(ctx, domain));
    },
  );

  // For the identity service: whether the person an identity belongs to must sign in through their
  // organisation's provider (decided by their organisation, not by an address).
  app.get(
    '/admin/sso/identities/:identityId',
    openApi({ params: identityParamsSchema, responses: { 200: identityPolicySchema } }),
    async (request, reply) => {
      const { identityId } = parseInput(identityParamsSchema, request.params);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, identityPolicySchema, await identityPolicy(ctx, identityId));
    },
  );

  app.get(
    '/admin/sso/providers/:provider',
    openApi({ params: providerParamsSchema, responses: { 200: ssoProviderConfigSchema } }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return sendOutput(
        reply,
        200,
        ssoProviderConfigSchema,
        await providerConfig(ctx, providerId(request.params)),
      );
    },
  );

  app.post(
    '/admin/sso/providers/:provider/members',
    openApi({
      params: providerParamsSchema,
      body: ssoMemberSchema,
      responses: { 200: ssoMemberResultSchema },
    }),
    async (request, reply) => {
      const provider = providerId(request.params);
      const person = parseInput(ssoMemberSchema, request.body);
      const member = await provisionSsoMember(ctx, provider, person);
      request.log.info({ provider, userId: member.userId }, 'sso member resolved');
      return sendOutput(reply, 200, ssoMemberResultSchema, member);
    },
  );
}
