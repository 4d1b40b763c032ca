import { orgParamsSchema } from './schemas.ts';
import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { findProviderByOrganisation, type SsoProviderRow } from '../sso/repository.ts';
import { samlFacts, serviceProviderUrls } from '../sso/saml-provider.ts';
import {
  consoleSsoInputSchema,
  consoleSsoSchema,
  SAML_METADATA_MAX_BYTES,
  ssoConnectionInputSchema,
  ssoConnectionReportSchema,
  ssoTestSignInCompletionSchema,
  ssoTestSignInResultSchema,
  ssoTestSignInStartedSchema,
} from '@acme/users-contract/console-sso';
import { DEFAULT_CLAIM_MAPPING, DEFAULT_SAML_ATTRIBUTES } from '../sso/schemas.ts';
import { defaultProviderId, removeSsoProvider, setSsoProvider } from '../sso/service.ts';
import type { Permission } from '../users/roles.ts';
import { originOf, type ConsoleCaller } from '../access/auth.ts';
import { testConnection } from './sso-connection.ts';
import { testSamlConnection } from './sso-saml-connection.ts';
import { checkOutboundHost, checkOutboundUrl, OutboundError } from '@acme/service-kit/outbound';
import { completeTestSignIn, startTestSignIn } from './sso-test-sign-in.ts';

// The console's Single sign-on section (issue 24, permission ConfigureSSO): the organisation's
// OIDC or SAML provider through the operator's own code path (sso/service.ts), Test connection and
// Test sign-in (OIDC). The client secret is write-once: no answer ever carries it or any hint of it.

const PERMISSION: Permission = 'ConfigureSSO';

type Authorise = (
  request: FastifyRequest,
  permission: Permission,
  write: boolean,
) => Promise<{ caller: ConsoleCaller; organisationId: string }>;

/**
 * Pasted SAML metadata may be up to 1 MiB (the parser's limit), more than the public API's usual
 * body limit: these routes take up to twice that, for JSON's escaping.
 */
const SAML_BODY_LIMIT = 2 * SAML_METADATA_MAX_BYTES;

const emptyBodySchema = z.object({}).strict();

function view(row: SsoProviderRow): z.input<typeof consoleSsoSchema>['provider'] {
  const common = {
    provider: row.provider_id,
    jit: row.jit,
    enforce: row.enforce,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (row.protocol === 'saml') {
    const facts = samlFacts(row.saml);
    return {
      ...common,
      protocol: 'saml',
      idpEntityId: facts.idpEntityId,
      ssoUrl: facts.ssoUrl,
      metadataUrl: facts.metadataUrl,
      certificates: facts.certificates,
      fetchedAt: facts.fetchedAt,
      refreshError: facts.refreshError,
    };
  }
  return {
    ...common,
    protocol: 'oidc',
    issuer: row.issuer,
    clientId: row.client_id,
    scopes: row.scopes,
  };
}

export function registerConsoleSsoRoutes(
  app: FastifyInstance,
  ctx: UsersContext,
  authorise: Authorise,
): void {
  const base = '/console/organisations/:organisationId/sso';
  const policy = ctx.config.consoleSso;

  async function show(organisationId: string) {
    const organisation = await findOrganisation(ctx.db, organisationId);
    if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
    const row = await findProviderByOrganisation(ctx.db, organisationId);
    const provider = row?.provider_id ?? defaultProviderId(organisation);
    return {
      provider: row ? view(row) : null,
      redirectUris: {
        signIn: `${ctx.config.identityPublicUrl}/self-service/methods/oidc/callback/${provider}`,
        testSignIn: policy.testRedirectUri,
      },
      serviceProvider: serviceProviderUrls(ctx.config.identityPublicUrl, provider),
    };
  }

  /**
   * The issuer an org-admin names must be one the console's checks may reach: https (plain http
   * only for configured development hosts), and, when saved, a name that resolves to public
   * addresses only, since the identity service will fetch it too.
   */
  async function reachableIssuer(issuer: string, resolve: boolean, field = 'issuer'): Promise<void> {
    try {
      if (resolve) await checkOutboundHost(issuer, policy);
      else checkOutboundUrl(issuer, policy);
    } catch (error) {
      const reason = error instanceof OutboundError ? error.reason : 'invalid_url';
      throw new AppError(
        'INVALID_REQUEST',
        reason === 'private_address'
          ? `The request is invalid: ${field}: must not be a private or loopback address`
          : reason === 'unreachable'
            ? `The request is invalid: ${field}: the host name does not resolve`
            : `The request is invalid: ${field}: must be an https URL`,
      );
    }
  }

  app.get(
    base,
    openApi({ params: orgParamsSchema, responses: { 200: consoleSsoSchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, PERMISSION, false);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, consoleSsoSchema, await show(organisationId));
    },
  );

  app.put(
    base,
    {
      ...openApi({
        params: orgParamsSchema,
        body: consoleSsoInputSchema,
        responses: { 200: consoleSsoSchema },
      }),
      bodyLimit: SAML_BODY_LIMIT,
    },
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const body = parseInput(consoleSsoInputSchema, request.body);
      const existing = await findProviderByOrganisation(ctx.db, organisationId);
      if (body.protocol === 'saml') {
        if (body.metadataUrl !== undefined) await reachableIssuer(body.metadataUrl, true, 'metadataUrl');
        await setSsoProvider(
          ctx,
          organisationId,
          {
            protocol: 'saml',
            metadataUrl: body.metadataUrl,
            metadataXml: body.metadataXml,
            jit: body.jit,
            enforce: body.enforce,
            // What only the operator sets stays as it is.
            attributes: existing?.saml?.attributes ?? DEFAULT_SAML_ATTRIBUTES,
            allowIdpInitiated: existing?.saml?.allowIdpInitiated ?? false,
          },
          originOf(caller, request),
        );
      } else {
        await reachableIssuer(body.issuer, true);
        await setSsoProvider(
          ctx,
          organisationId,
          {
            issuer: body.issuer,
            clientId: body.clientId,
            clientSecret: body.clientSecret,
            scopes: body.scopes,
            jit: body.jit,
            enforce: body.enforce,
            // What only the operator sets stays as it is.
            claimMapping: existing?.claim_mapping ?? DEFAULT_CLAIM_MAPPING,
            userinfo: existing?.userinfo ?? false,
          },
          originOf(caller, request),
        );
      }
      request.log.info(
        { organisationId, protocol: body.protocol ?? 'oidc' },
        'sso provider set in the console',
      );
      return sendOutput(reply, 200, consoleSsoSchema, await show(organisationId));
    },
  );

  app.delete(base, openApi({ params: orgParamsSchema, responses: { 204: null } }), async (request, reply) => {
    const { caller, organisationId } = await authorise(request, PERMISSION, true);
    await removeSsoProvider(ctx, organisationId, originOf(caller, request));
    request.log.info({ organisationId }, 'sso provider removed in the console');
    return reply.code(204).send();
  });

  app.post(
    `${base}/test-connection`,
    {
      ...openApi({
        params: orgParamsSchema,
        body: ssoConnectionInputSchema.optional(),
        responses: { 200: ssoConnectionReportSchema },
      }),
      bodyLimit: SAML_BODY_LIMIT,
    },
    async (request, reply) => {
      const { organisationId } = await authorise(request, PERMISSION, false);
      const body = parseInput(ssoConnectionInputSchema, request.body ?? {});
      const row = await findProviderByOrganisation(ctx.db, organisationId);
      const saml = body.protocol === 'saml' || (body.protocol === undefined && row?.protocol === 'saml');
      let checks;
      if (saml) {
        const given: { metadataUrl?: string | undefined; metadataXml?: string | undefined } =
          body.protocol === 'saml' ? body : {};
        const url =
          given.metadataUrl ?? (given.metadataXml === undefined ? row?.saml?.metadataUrl : undefined);
        const xml = given.metadataXml ?? (url ? undefined : row?.saml?.metadataXml);
        if (url) {
          await reachableIssuer(url, false, 'metadataUrl');
          checks = await testSamlConnection({ url }, policy, ctx.clock.now());
        } else if (xml !== undefined) {
          checks = await testSamlConnection({ xml }, policy, ctx.clock.now());
        } else {
          throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
        }
      } else {
        const issuer = body.issuer ?? (row?.protocol === 'oidc' ? row.issuer : undefined);
        if (issuer === undefined) {
          throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
        }
        await reachableIssuer(issuer, false);
        checks = await testConnection(
          issuer.replace(/\/+$/, ''),
          row?.scopes ?? ['openid', 'email', 'profile'],
          policy,
        );
      }
      return sendOutput(reply, 200, ssoConnectionReportSchema, { ok: checks.every((c) => c.ok), checks });
    },
  );

  app.post(
    `${base}/test-sign-in`,
    openApi({
      params: orgParamsSchema,
      body: emptyBodySchema.optional(),
      responses: { 201: ssoTestSignInStartedSchema },
    }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      parseInput(emptyBodySchema, request.body ?? {});
      const started = await startTestSignIn(ctx, caller, organisationId);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 201, ssoTestSignInStartedSchema, started);
    },
  );

  app.post(
    `${base}/test-sign-in/complete`,
    openApi({
      params: orgParamsSchema,
      body: ssoTestSignInCompletionSchema,
      responses: { 200: ssoTestSignInResultSchema },
    }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const body = parseInput(ssoTestSignInCompletionSchema, request.body);
      const result = await completeTestSignIn(ctx, caller, organisationId, body);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, ssoTestSignInResultSchema, result);
    },
  );
}
