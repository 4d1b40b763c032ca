import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { findProviderByOrganisation, type SsoProviderRow } from '../sso/repository.ts';
import { DEFAULT_CLAIM_MAPPING, setSsoProviderSchema } from '../sso/schemas.ts';
import { defaultProviderId, removeSsoProvider, setSsoProvider } from '../sso/service.ts';
import type { Permission } from '../users/roles.ts';
import { originOf, type ConsoleCaller } from './auth.ts';
import { CONNECTION_CHECKS, testConnection } from './sso-connection.ts';
import { checkOutboundHost, checkOutboundUrl, OutboundError } from './sso-outbound.ts';
import { completeTestSignIn, startTestSignIn } from './sso-test-sign-in.ts';

// The console's Single sign-on section (issue 24, permission ConfigureSSO): the organisation's
// OIDC provider through the operator's own code path (sso/service.ts), Test connection and Test
// sign-in. The client secret is write-once: no answer ever carries it or any hint of it.

const PERMISSION: Permission = 'ConfigureSSO';

type Authorise = (
  request: FastifyRequest,
  permission: Permission,
  write: boolean,
) => Promise<{ caller: ConsoleCaller; organisationId: string }>;

const operatorShape = setSsoProviderSchema.shape;

/** What an org-admin may set: no provider id (it follows the domain), claim mapping or userinfo. */
const consoleSetSsoSchema = z
  .object({
    issuer: operatorShape.issuer,
    clientId: operatorShape.clientId,
    /** Left out: the stored secret stays. */
    clientSecret: z.string().min(1).max(2000).optional(),
    scopes: operatorShape.scopes,
    jit: z.boolean(),
    enforce: z.boolean(),
  })
  .strict();

const testConnectionSchema = z.object({ issuer: operatorShape.issuer.optional() }).strict();

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

const providerViewSchema = z.object({
  provider: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  scopes: z.array(z.string()),
  jit: z.boolean(),
  enforce: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

const consoleSsoSchema = z.object({
  provider: providerViewSchema.nullable(),
  /** To register at the provider: the sign-in callback (identity service) and Test sign-in's (admin application). */
  redirectUris: z.object({ signIn: z.string(), testSignIn: z.string() }),
});

const connectionSchema = z.object({
  ok: z.boolean(),
  checks: z.array(
    z.object({
      check: z.enum(CONNECTION_CHECKS),
      ok: z.boolean(),
      reason: z.string().nullable(),
      value: z.string().nullable(),
    }),
  ),
});

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

function view(row: SsoProviderRow) {
  return {
    provider: row.provider_id,
    issuer: row.issuer,
    clientId: row.client_id,
    scopes: row.scopes,
    jit: row.jit,
    enforce: row.enforce,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
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
    };
  }

  /**
   * The issuer an org-admin names must be one the console's checks may reach: https (plain http
   * only for configured development hosts), and, when saved, a name that resolves to public
   * addresses only, since the identity service will fetch it too.
   */
  async function reachableIssuer(issuer: string, resolve: boolean): Promise<void> {
    try {
      if (resolve) await checkOutboundHost(issuer, policy);
      else checkOutboundUrl(issuer, policy);
    } catch (error) {
      const reason = error instanceof OutboundError ? error.reason : 'invalid_url';
      throw new AppError(
        'INVALID_REQUEST',
        reason === 'private_address'
          ? 'The request is invalid: issuer: must not be a private or loopback address'
          : reason === 'unreachable'
            ? 'The request is invalid: issuer: the host name does not resolve'
            : 'The request is invalid: issuer: must be an https URL',
      );
    }
  }

  app.get(base, async (request, reply) => {
    const { organisationId } = await authorise(request, PERMISSION, false);
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 200, consoleSsoSchema, await show(organisationId));
  });

  app.put(base, async (request, reply) => {
    const { caller, organisationId } = await authorise(request, PERMISSION, true);
    const body = parseInput(consoleSetSsoSchema, request.body);
    await reachableIssuer(body.issuer, true);
    const existing = await findProviderByOrganisation(ctx.db, organisationId);
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
    request.log.info({ organisationId }, 'sso provider set in the console');
    return sendOutput(reply, 200, consoleSsoSchema, await show(organisationId));
  });

  app.delete(base, async (request, reply) => {
    const { caller, organisationId } = await authorise(request, PERMISSION, true);
    await removeSsoProvider(ctx, organisationId, originOf(caller, request));
    request.log.info({ organisationId }, 'sso provider removed in the console');
    return reply.code(204).send();
  });

  app.post(`${base}/test-connection`, async (request, reply) => {
    const { organisationId } = await authorise(request, PERMISSION, false);
    const body = parseInput(testConnectionSchema, request.body ?? {});
    const row = await findProviderByOrganisation(ctx.db, organisationId);
    const issuer = body.issuer ?? row?.issuer;
    if (issuer === undefined) {
      throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
    }
    await reachableIssuer(issuer, false);
    const checks = await testConnection(
      issuer.replace(/\/+$/, ''),
      row?.scopes ?? ['openid', 'email', 'profile'],
      policy,
    );
    return sendOutput(reply, 200, connectionSchema, { ok: checks.every((c) => c.ok), checks });
  });

  app.post(`${base}/test-sign-in`, async (request, reply) => {
    const { caller, organisationId } = await authorise(request, PERMISSION, true);
    parseInput(z.object({}).strict(), request.body ?? {});
    const started = await startTestSignIn(ctx, caller, organisationId);
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 201, startedSchema, started);
  });

  app.post(`${base}/test-sign-in/complete`, async (request, reply) => {
    const { caller, organisationId } = await authorise(request, PERMISSION, true);
    const body = parseInput(completeSchema, request.body);
    const result = await completeTestSignIn(ctx, caller, organisationId, body);
    reply.header('cache-control', 'no-store');
    return sendOutput(reply, 200, resultSchema, result);
  });
}
