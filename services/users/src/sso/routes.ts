import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { jsonRoutes, type PathParams } from '../http/route.ts';
import { organisationPath } from '../organisations/path.ts';
import { SAML_METADATA_MAX_BYTES } from '@acme/users-contract/console-sso';
import {
  domainParamsSchema,
  domainPolicySchema,
  identityParamsSchema,
  identityPolicySchema,
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

/** A provider id in a path (`:provider`); one that is not a provider id names none (404). */
const providerPath: PathParams<typeof providerParamsSchema, string> = {
  schema: providerParamsSchema,
  resolve: ({ provider }) => {
    const parsed = providerIdSchema.safeParse(provider);
    if (!parsed.success) throw new AppError('SSO_NOT_CONFIGURED', 'No single sign-on provider has this id.');
    return parsed.data;
  },
};

export function registerSsoRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const route = jsonRoutes(app, ctx);
  // Pasted SAML metadata may be up to 1 MiB (twice that for JSON's escaping).
  route(
    'PUT',
    '/admin/organisations/:id/sso',
    {
      params: organisationPath,
      body: setSsoProviderSchema,
      response: ssoProviderSchema,
      bodyLimit: 2 * SAML_METADATA_MAX_BYTES,
    },
    async ({ params: id, body }, request) => {
      const provider = await setSsoProvider(ctx, id, body);
      request.log.info(
        { organisationId: id, provider: provider.provider, protocol: provider.protocol },
        'sso provider set',
      );
      return provider;
    },
  );

  route(
    'GET',
    '/admin/organisations/:id/sso',
    { params: organisationPath, response: ssoProviderSchema },
    async ({ params: id }) => getSsoProvider(ctx, id),
  );

  route(
    'DELETE',
    '/admin/organisations/:id/sso',
    { params: organisationPath, status: 204, response: null },
    async ({ params: id }, request) => {
      await removeSsoProvider(ctx, id);
      request.log.info({ organisationId: id }, 'sso provider removed');
    },
  );

  route(
    'PUT',
    '/admin/organisations/:id/sso/break-glass',
    { params: organisationPath, body: setBreakGlassSchema, response: ssoProviderSchema },
    async ({ params: id, body: { userId } }, request) => {
      const provider = await setBreakGlass(ctx, id, userId);
      request.log.info({ organisationId: id, userId }, 'sso break-glass user set');
      return provider;
    },
  );

  route(
    'DELETE',
    '/admin/organisations/:id/sso/break-glass',
    { params: organisationPath, response: ssoProviderSchema },
    async ({ params: id }, request) => {
      const provider = await setBreakGlass(ctx, id, null);
      request.log.info({ organisationId: id }, 'sso break-glass user cleared');
      return provider;
    },
  );

  // For the identity service: whether a domain's organisation enforces SSO (and who is exempt).
  // Every domain gets the same shape, so the answer says nothing about any account.
  route(
    'GET',
    '/admin/sso/domains/:domain',
    { params: domainParamsSchema, response: domainPolicySchema, noStore: true },
    async ({ params: { domain } }) => domainPolicy(ctx, domain),
  );

  // For the identity service: whether the person an identity belongs to must sign in through their
  // organisation's provider (decided by their organisation, not by an address).
  route(
    'GET',
    '/admin/sso/identities/:identityId',
    { params: identityParamsSchema, response: identityPolicySchema, noStore: true },
    async ({ params: { identityId } }) => identityPolicy(ctx, identityId),
  );

  route(
    'GET',
    '/admin/sso/providers/:provider',
    { params: providerPath, response: ssoProviderConfigSchema, noStore: true },
    async ({ params: provider }) => providerConfig(ctx, provider),
  );

  route(
    'POST',
    '/admin/sso/providers/:provider/members',
    { params: providerPath, body: ssoMemberSchema, response: ssoMemberResultSchema },
    async ({ params: provider, body: person }, request) => {
      const member = await provisionSsoMember(ctx, provider, person);
      request.log.info({ provider, userId: member.userId }, 'sso member resolved');
      return member;
    },
  );
}
