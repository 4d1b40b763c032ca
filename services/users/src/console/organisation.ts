import type { ConsoleApiClient, ConsoleSubscription } from '@acme/users-contract/console';
import type { Kysely } from 'kysely';
import type { UsersDb } from '../db-types.ts';

/** The console's reads of an organisation's API clients and subscription (issue 24). */

export async function listConsoleApiClients(
  db: Kysely<UsersDb>,
  organisationId: string,
): Promise<ConsoleApiClient[]> {
  const rows = await db
    .selectFrom('api_clients')
    .leftJoin('users', 'users.id', 'api_clients.created_by')
    .select([
      'api_clients.id',
      'api_clients.name',
      'api_clients.kind',
      'api_clients.scope_groups',
      'api_clients.redirect_uris',
      'api_clients.created_at',
      'api_clients.revoked_at',
      'users.email',
    ])
    .where('api_clients.organisation_id', '=', organisationId)
    .orderBy('api_clients.created_at', 'desc')
    .orderBy('api_clients.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    name: row.name,
    scopeGroups: row.scope_groups,
    redirectUris: row.redirect_uris,
    createdAt: row.created_at.toISOString(),
    createdBy: row.email,
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
  }));
}

export async function readSubscription(
  db: Kysely<UsersDb>,
  organisationId: string,
): Promise<ConsoleSubscription | null> {
  const organisation = await db
    .selectFrom('organisations')
    .select(['subscription_status', 'm365'])
    .where('id', '=', organisationId)
    .executeTakeFirst();
  if (!organisation) return null;
  const rows = await db
    .selectFrom('marketplace_subscriptions')
    .select(['id', 'offer_id', 'plan_id', 'quantity', 'status', 'activated_at', 'updated_at'])
    .where('organisation_id', '=', organisationId)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .execute();
  return {
    status: organisation.subscription_status,
    m365: organisation.m365,
    marketplace: rows.map((row) => ({
      id: row.id,
      offerId: row.offer_id,
      planId: row.plan_id,
      quantity: row.quantity,
      status: row.status,
      activatedAt: row.activated_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    })),
  };
}
