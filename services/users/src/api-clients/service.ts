import type { Insertable, Kysely } from 'kysely';
import type { ApiClientsTable, UsersDb } from '../db-types.ts';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { hasPermission, isRole } from '../users/roles.ts';
import { operatorOrigin, recordEvent, type EventOrigin } from '../events/events.ts';
import type { ApiClient, CreateApiClientInput } from './schemas.ts';

/**
 * API clients of an organisation (audience kind API). Creating one registers a client-credentials
 * client with the authorization server, whose tokens carry the organisation, the scope groups and
 * `authenticationMode: "api"`; the secret comes back once and is stored there, hashed, only.
 * Revoking deletes that client: its next token request fails.
 */

type Row = Pick<ApiClientsTable, 'id' | 'organisation_id' | 'name' | 'created_at' | 'revoked_at'> & {
  scope_groups: string[];
};

function toApiClient(row: Row): ApiClient {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    name: row.name,
    scopeGroups: row.scope_groups,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

const COLUMNS = ['id', 'organisation_id', 'name', 'scope_groups', 'created_at', 'revoked_at'] as const;

/**
 * The acting user, when named: an active user of the organisation whose role holds
 * ManageAccessTokens and who holds every scope group in `granting` (no one hands an API client more than they have).
 */
async function checkActor(
  db: Kysely<UsersDb>,
  organisationId: string,
  actorEmail: string | undefined,
  granting: readonly string[] = [],
): Promise<string | null> {
  if (actorEmail === undefined) return null;
  const actor = await db
    .selectFrom('users')
    .select(['id', 'organisation_id', 'role', 'scope_groups', 'deactivated_at'])
    .where('email', '=', actorEmail)
    .executeTakeFirst();
  // A deactivated person acts for nobody: an API client made in their name would outlive the
  // deprovisioning that revoked their others.
  if (actor?.deactivated_at) {
    throw new AppError('ACCOUNT_INACTIVE', 'The acting user has been deactivated.');
  }
  if (
    !actor ||
    actor.organisation_id !== organisationId ||
    !isRole(actor.role) ||
    !hasPermission(actor.role, 'ManageAccessTokens')
  ) {
    throw new AppError(
      'PERMISSION_DENIED',
      "The acting user may not manage this organisation's API clients (ManageAccessTokens).",
    );
  }
  const held = new Set(actor.scope_groups);
  const missing = granting.filter((group) => !held.has(group));
  if (missing.length > 0) {
    throw new AppError(
      'PERMISSION_DENIED',
      `The acting user may not grant scope groups they do not hold: ${missing.join(', ')}.`,
    );
  }
  return actor.id;
}

/**
 * Records a client the authorization server just created, with its `api_client.created` event;
 * on failure deletes it there again: never a working client that no one can list or revoke.
 */
async function storeCreated(
  ctx: UsersContext,
  row: Insertable<ApiClientsTable> & { id: string; organisation_id: string; created_at: Date },
  origin: EventOrigin,
  details: Record<string, string>,
): Promise<void> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('api_clients').values(row).execute();
      await recordEvent(
        trx,
        origin,
        { organisationId: row.organisation_id, type: 'api_client.created', subjectId: null, details },
        row.created_at,
      );
    });
  } catch (error) {
    await ctx.oauth2Clients.deleteClient(row.id).catch(() => undefined);
    throw error;
  }
}

export async function createApiClient(
  ctx: UsersContext,
  input: CreateApiClientInput,
  /** Who the event names: the console's person; the operator API's operator by default. */
  origin?: EventOrigin,
): Promise<ApiClient & { clientSecret: string }> {
  const organisation = await findOrganisation(ctx.db, input.organisationId);
  if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  const createdBy = await checkActor(ctx.db, organisation.id, input.actorEmail, input.scopeGroups);

  const ext = {
    user: { authenticationMode: 'api' },
    organisation: { id: organisation.id, name: organisation.name },
    scopeGroups: input.scopeGroups,
  };
  const { clientId, clientSecret } = await ctx.oauth2Clients.createApiClient(
    `${organisation.name}: ${input.name}`,
    ext,
  );
  const row = {
    id: clientId,
    organisation_id: organisation.id,
    name: input.name,
    scope_groups: JSON.stringify(input.scopeGroups),
    created_by: createdBy,
    created_at: ctx.clock.now(),
    revoked_at: null,
  };
  await storeCreated(ctx, row, origin ?? operatorOrigin(createdBy), { clientId, name: input.name });
  return { ...toApiClient({ ...row, scope_groups: input.scopeGroups }), clientSecret };
}

export interface CreateWebAppInput {
  organisationId: string;
  name: string;
  redirectUris: readonly string[];
  postLogoutRedirectUris: readonly string[];
  actorEmail: string;
}

/**
 * The organisation's own web app: an authorization-code client of the authorization server whose
 * redirect URIs are matched exactly and whose users see the consent screen naming it. Its tokens
 * are the signed-in person's, so it carries no `ext` of the organisation; the organisation owns it
 * through this table (list, revoke) and the client's `owner`, which the consent screen names. The secret comes back once.
 */
export async function createWebApp(
  ctx: UsersContext,
  input: CreateWebAppInput,
  origin: EventOrigin,
): Promise<ApiClient & { clientSecret: string; redirectUris: string[] }> {
  const organisation = await findOrganisation(ctx.db, input.organisationId);
  if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  const createdBy = await checkActor(ctx.db, organisation.id, input.actorEmail);
  const redirectUris = [...new Set(input.redirectUris)];
  const { clientId, clientSecret } = await ctx.oauth2Clients.createWebClient({
    name: `${organisation.name}: ${input.name}`,
    redirectUris,
    postLogoutRedirectUris: [...new Set(input.postLogoutRedirectUris)],
    owner: organisation.id,
  });
  const row = {
    id: clientId,
    organisation_id: organisation.id,
    name: input.name,
    kind: 'web' as const,
    scope_groups: '[]',
    redirect_uris: JSON.stringify(redirectUris),
    created_by: createdBy,
    created_at: ctx.clock.now(),
    revoked_at: null,
  };
  await storeCreated(ctx, row, origin, { clientId, name: input.name, kind: 'web' });
  return { ...toApiClient({ ...row, scope_groups: [] }), redirectUris, clientSecret };
}

export async function listApiClients(db: Kysely<UsersDb>, organisationId: string): Promise<ApiClient[]> {
  const rows = await db
    .selectFrom('api_clients')
    .select(COLUMNS)
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toApiClient);
}

/** Idempotent: revoking a revoked client answers it unchanged. */
export async function revokeApiClient(
  ctx: UsersContext,
  id: string,
  actorEmail: string | undefined,
  origin?: EventOrigin,
): Promise<ApiClient> {
  const row = await ctx.db.selectFrom('api_clients').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('API_CLIENT_NOT_FOUND', 'No API client has this id.');
  const actorId = await checkActor(ctx.db, row.organisation_id, actorEmail);
  if (row.revoked_at) return toApiClient(row);
  // Delete at the authorization server first: only then is the client really unusable.
  await ctx.oauth2Clients.deleteClient(row.id);
  const revokedAt = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ revoked_at: revokedAt }).where('id', '=', id).execute();
    await recordEvent(
      trx,
      origin ?? operatorOrigin(actorId),
      {
        organisationId: row.organisation_id,
        type: 'api_client.revoked',
        subjectId: null,
        details: { clientId: row.id, name: row.name },
      },
      revokedAt,
    );
  });
  return toApiClient({ ...row, revoked_at: revokedAt });
}
