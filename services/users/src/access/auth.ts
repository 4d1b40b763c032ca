import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { PLATFORM_API_AUDIENCE } from '@acme/service-kit/audiences';
import { requestIdHeaders } from '@acme/service-kit/request-id';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import { bearerToken } from '../http/bearer.ts';
import { AppError } from '../http/errors.ts';
import { parseInput } from '../http/validate.ts';
import { requireTrustedNetwork } from './networks.ts';
import { isRole, permissionsOf, type Permission, type Role } from '../users/roles.ts';
import type { EventOrigin } from '../events/events.ts';
import { orgParamsSchema } from '@acme/users-contract/console';

/** The path parameters of a route under one organisation. */

/** The person behind a console call: from the access token's subject, authorised from our database. */
export interface ConsoleCaller {
  userId: string;
  identityId: string;
  organisationId: string;
  email: string;
  role: Role;
  permissions: readonly Permission[];
}

const introspectionSchema = z.object({
  active: z.boolean(),
  sub: z.string().optional(),
  exp: z.number().optional(),
  token_use: z.string().optional(),
  aud: z.array(z.string()).optional(),
  client_id: z.string().optional(),
  ext: z.record(z.string(), z.unknown()).optional(),
});

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message, { 'WWW-Authenticate': 'Bearer' });
}

/**
 * Verifies the bearer access token by the authorization server's introspection (signature, expiry
 * and a live grant), then reads the caller's organisation, role and state from our own tables: a
 * role changed or a member deactivated a moment ago counts at once, whatever the token says. The
 * organisation's trusted networks, when it has them, must hold the request's client address
 * (403 `NETWORK_NOT_TRUSTED`).
 */
export async function consoleCaller(ctx: UsersContext, request: FastifyRequest): Promise<ConsoleCaller> {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) throw unauthenticated('An access token is required (Authorization: Bearer).');
  const introspection = await introspect(ctx, token);
  const nowSeconds = Math.floor(ctx.clock.now().getTime() / 1000);
  if (
    !introspection.active ||
    introspection.sub === undefined ||
    introspection.token_use === 'refresh_token' ||
    (introspection.exp !== undefined && introspection.exp <= nowSeconds) ||
    // A token issued for another resource (an assistant's token for the MCP server) is no token
    // for the platform's APIs.
    !(introspection.aud ?? []).includes(PLATFORM_API_AUDIENCE)
  ) {
    throw unauthenticated('The access token is not valid or has expired.');
  }
  const row = z.uuid().safeParse(introspection.sub).success
    ? await ctx.db
        .selectFrom('users')
        .select(['id', 'identity_id', 'organisation_id', 'email', 'role', 'deactivated_at'])
        .where('identity_id', '=', introspection.sub)
        .executeTakeFirst()
    : undefined;
  if (!row || row.identity_id === null || !isRole(row.role)) {
    throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
  }
  if (row.deactivated_at !== null) {
    throw new AppError('ACCOUNT_INACTIVE', 'Your account has been deactivated.');
  }
  // A token got inside the organisation's trusted networks does not work from outside them: every
  // console and `/me` bearer call is checked from the address this request came from (through the
  // trusted proxies), as the sign-in and every refresh are.
  await requireTrustedNetwork(ctx.db, row.organisation_id, request.ip);
  return {
    userId: row.id,
    identityId: row.identity_id,
    organisationId: row.organisation_id,
    email: row.email,
    role: row.role,
    permissions: permissionsOf(row.role),
  };
}

/** The authorization server's introspection of a token (admin API). */
export async function introspect(
  ctx: UsersContext,
  token: string,
): Promise<z.infer<typeof introspectionSchema>> {
  let response: Response;
  try {
    response = await fetch(`${ctx.config.oauth2AdminUrl}/admin/oauth2/introspect`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        ...requestIdHeaders(),
        ...adminAuthHeaders(ctx.config.oauth2AdminKey),
      },
      body: new URLSearchParams({ token }).toString(),
      signal: AbortSignal.timeout(ctx.config.upstreamTimeoutMs),
    });
  } catch {
    throw new AppError('UPSTREAM_ERROR', 'The authorization server is unreachable.');
  }
  const parsed = introspectionSchema.safeParse(await response.json().catch(() => undefined));
  if (response.status !== 200 || !parsed.success) {
    throw new AppError('UPSTREAM_ERROR', 'The authorization server could not check the access token.');
  }
  return parsed.data;
}

/** 403 `PERMISSION_DENIED` unless the caller's role holds `permission`. */
function requirePermission(caller: ConsoleCaller, permission: Permission): void {
  if (!caller.permissions.includes(permission)) {
    throw new AppError('PERMISSION_DENIED', `This needs the ${permission} permission.`);
  }
}

/**
 * The organisation a call may act on: the caller's own, or, for the provider's staff, any other
 * (ViewOrganisations to read, ManageOrganisations to change).
 */
function requireOrganisation(caller: ConsoleCaller, organisationId: string, write: boolean): void {
  if (organisationId === caller.organisationId) return;
  const staff: Permission = write ? 'ManageOrganisations' : 'ViewOrganisations';
  if (!caller.permissions.includes(staff)) {
    throw new AppError('FORBIDDEN', 'You can only manage your own organisation.');
  }
}

export function originOf(caller: ConsoleCaller, request: FastifyRequest): EventOrigin {
  return { actorKind: 'person', actorId: caller.userId, ip: request.ip, requestId: String(request.id) };
}

/** Authenticates, then checks the permission and the organisation of the path. */
export async function authoriseConsole(
  ctx: UsersContext,
  request: FastifyRequest,
  permission: Permission | readonly Permission[],
  write: boolean,
): Promise<{ caller: ConsoleCaller; organisationId: string }> {
  const caller = await consoleCaller(ctx, request);
  for (const needed of typeof permission === 'string' ? [permission] : permission) {
    requirePermission(caller, needed);
  }
  const { organisationId } = parseInput(orgParamsSchema.passthrough(), request.params);
  requireOrganisation(caller, organisationId, write);
  const exists = await ctx.db
    .selectFrom('organisations')
    .select('id')
    .where('id', '=', organisationId)
    .executeTakeFirst();
  if (!exists) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  return { caller, organisationId };
}
