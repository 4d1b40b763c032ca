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
import { SAML_METADATA_MAX_BYTES } from '../sso/saml-metadata.ts';
import {
  certificateFactsSchema,
  DEFAULT_CLAIM_MAPPING,
  DEFAULT_SAML_ATTRIBUTES,
  metadataUrlSchema,
  metadataXmlSchema,
  serviceProviderSchema,
  setOidcProviderSchema,
} from '../sso/schemas.ts';
import { defaultProviderId, removeSsoProvider, setSsoProvider } from '../sso/service.ts';
import type { Permission } from '../users/roles.ts';
import { originOf, type ConsoleCaller } from '../access/auth.ts';
import { SAML_CONNECTION_CHECKS } from '@acme/users-contract/console-sso';
import { CONNECTION_CHECKS, testConnection } from './sso-connection.ts';
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

const operatorShape = setOidcProviderSchema.shape;

/**
 * Pasted SAML metadata may be up to 1 MiB (the parser's limit), more than the public API's usual
 * body limit: these routes take up to twice that, for JSON's escaping.
 */
const SAML_BODY_LIMIT = 2 * SAML_METADATA_MAX_BYTES;

const oneMetadataSource = {
  message: 'give exactly one of metadataUrl and metadataXml',
  path: ['metadataUrl'],
};

/** What an org-admin may set: no provider id (it follows the domain), claim mapping or userinfo. */
const consoleSetOidcSchema = z
  .object({
    protocol: z.literal('oidc').optional(),
    issuer: operatorShape.issuer,
    clientId: operatorShape.clientId,
    /** Left out: the stored secret stays. */
    clientSecret: z.string().min(1).max(2000).optional(),
    scopes: operatorShape.scopes,
    jit: z.boolean(),
    enforce: z.boolean(),
  })
  .strict();

/** SAML: the metadata by URL (refreshed daily) or pasted; attribute names stay as the operator set them. */
const consoleSetSamlSchema = z
  .object({
    protocol: z.literal('saml'),
    metadataUrl: metadataUrlSchema.optional(),
    metadataXml: metadataXmlSchema.optional(),
    jit: z.boolean(),
    enforce: z.boolean(),
  })
  .strict()
  .refine((v) => (v.metadataUrl === undefined) !== (v.metadataXml === undefined), oneMetadataSource);

const consoleSetSsoSchema = z.discriminatedUnion('protocol', [consoleSetOidcSchema, consoleSetSamlSchema]);

/** Test connection: the stored provider, another issuer (OIDC), or metadata to check before saving. */
const testConnectionSchema = z.discriminatedUnion('protocol', [
  z.object({ protocol: z.literal('oidc').optional(), issuer: operatorShape.issuer.optional() }).strict(),
  z
    .object({
      protocol: z.literal('saml'),
      metadataUrl: metadataUrlSchema.optional(),
      metadataXml: metadataXmlSchema.optional(),
    })
    .strict()
    .refine((v) => v.metadataUrl === undefined || v.metadataXml === undefined, oneMetadataSource),
]);

const completeSchema = z
  .object({
    state: z.string().min(1).max(200),
    code: z.string().min(1).max(4096).optional(),
    error: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be an OAuth 2.0 error code')
      .optional(),
  })
  .strict();

const oidcViewSchema = z.object({
  protocol: z.literal('oidc'),
  provider: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  scopes: z.array(z.string()),
  jit: z.boolean(),
  enforce: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

const samlViewSchema = z.object({
  protocol: z.literal('saml'),
  provider: z.string(),
  idpEntityId: z.string(),
  ssoUrl: z.string(),
  metadataUrl: z.string().nullable(),
  certificates: z.array(certificateFactsSchema),
  fetchedAt: z.iso.datetime(),
  refreshError: z.string().nullable(),
  jit: z.boolean(),
  enforce: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

const consoleSsoSchema = z.object({
  provider: z.discriminatedUnion('protocol', [oidcViewSchema, samlViewSchema]).nullable(),
  /** To register at the provider: the sign-in callback (identity service) and Test sign-in's (admin application). */
  redirectUris: z.object({ signIn: z.string(), testSignIn: z.string() }),
  /** SAML: our service provider, to register at the IdP. */
  serviceProvider: serviceProviderSchema,
});

const connectionSchema = z.object({
  ok: z.boolean(),
  checks: z.array(
    z.object({
      check: z.enum([...CONNECTION_CHECKS, ...SAML_CONNECTION_CHECKS]),
      ok: z.boolean(),
      reason: z.string().nullable(),
      value: z.string().nullable(),
    }),
  ),
});

const emptyBodySchema = z.object({}).strict();

const startedSchema = z.object({
  authorizationUrl: z.string(),
  state: z.string(),
  redirectUri: z.string(),
  expiresAt: z.iso.datetime(),
});

const resultSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  claims: z.record(z.string(), z.unknown()),
  mapped: z.object({
    email: z.string().nullable(),
    emailVerified: z.boolean().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
  }),
  domainMatches: z.boolean(),
});

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
        body: consoleSetSsoSchema,
        responses: { 200: consoleSsoSchema },
      }),
      bodyLimit: SAML_BODY_LIMIT,
    },
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const body = parseInput(consoleSetSsoSchema, request.body);
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
        body: testConnectionSchema.optional(),
        responses: { 200: connectionSchema },
      }),
      bodyLimit: SAML_BODY_LIMIT,
    },
    async (request, reply) => {
      const { organisationId } = await authorise(request, PERMISSION, false);
      const body = parseInput(testConnectionSchema, request.body ?? {});
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
      return sendOutput(reply, 200, connectionSchema, { ok: checks.every((c) => c.ok), checks });
    },
  );

  app.post(
    `${base}/test-sign-in`,
    openApi({ params: orgParamsSchema, body: emptyBodySchema.optional(), responses: { 201: startedSchema } }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      parseInput(emptyBodySchema, request.body ?? {});
      const started = await startTestSignIn(ctx, caller, organisationId);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 201, startedSchema, started);
    },
  );

  app.post(
    `${base}/test-sign-in/complete`,
    openApi({ params: orgParamsSchema, body: completeSchema, responses: { 200: resultSchema } }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, PERMISSION, true);
      const body = parseInput(completeSchema, request.body);
      const result = await completeTestSignIn(ctx, caller, organisationId, body);
      reply.header('cache-control', 'no-store');
      return sendOutput(reply, 200, resultSchema, result);
    },
  );
}
