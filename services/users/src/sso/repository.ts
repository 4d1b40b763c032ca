import type { Kysely } from 'kysely';
import type { UsersDb } from '../db-types.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { AppError } from '../http/errors.ts';
import type { ClaimMapping } from './schemas.ts';

export interface SsoProviderRow {
  provider_id: string;
  organisation_id: string;
  issuer: string;
  client_id: string;
  client_secret_enc: string;
  scopes: string[];
  claim_mapping: ClaimMapping;
  jit: boolean;
  userinfo: boolean;
  enforce: boolean;
  break_glass_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function findProviderByOrganisation(
  db: Kysely<UsersDb>,
  organisationId: string,
): Promise<SsoProviderRow | undefined> {
  return db
    .selectFrom('sso_providers')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
}

export async function findProviderById(
  db: Kysely<UsersDb>,
  providerId: string,
): Promise<SsoProviderRow | undefined> {
  return db.selectFrom('sso_providers').selectAll().where('provider_id', '=', providerId).executeTakeFirst();
}

/**
 * One provider per organisation. Writes the row and the organisation's `sso_config` (what
 * `/login/config` reads, in its one indexed query) in one transaction, so they never disagree.
 */
export async function upsertProvider(
  db: Kysely<UsersDb>,
  row: SsoProviderRow,
  inTransaction?: (trx: Kysely<UsersDb>) => Promise<void>,
): Promise<void> {
  const values = {
    ...row,
    scopes: JSON.stringify(row.scopes),
    claim_mapping: JSON.stringify(row.claim_mapping),
  };
  try {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sso_providers').where('organisation_id', '=', row.organisation_id).execute();
      await trx.insertInto('sso_providers').values(values).execute();
      await trx
        .updateTable('organisations')
        .set({ sso_config: JSON.stringify({ provider: row.provider_id }) })
        .where('id', '=', row.organisation_id)
        .execute();
      await inTransaction?.(trx);
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('SSO_PROVIDER_TAKEN', 'Another organisation already uses this provider id.');
    }
    throw error;
  }
}

/** The SSO policy of one domain: its organisation's provider's `enforce` and break-glass user's address. */
export async function findDomainPolicy(
  db: Kysely<UsersDb>,
  domain: string,
): Promise<{ enforce: boolean; breakGlassEmail: string | null } | undefined> {
  return db
    .selectFrom('organisation_domains as d')
    .innerJoin('sso_providers as p', 'p.organisation_id', 'd.organisation_id')
    .leftJoin('users as u', (join) =>
      join
        .onRef('u.id', '=', 'p.break_glass_user_id')
        .onRef('u.organisation_id', '=', 'p.organisation_id')
        .on('u.role', '=', 'org-admin'),
    )
    .select(['p.enforce as enforce', 'u.email as breakGlassEmail'])
    .where('d.domain', '=', domain)
    .executeTakeFirst();
}

export async function setBreakGlassUser(
  db: Kysely<UsersDb>,
  organisationId: string,
  userId: string | null,
  now: Date,
): Promise<boolean> {
  const r = await db
    .updateTable('sso_providers')
    .set({ break_glass_user_id: userId, updated_at: now })
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteProvider(
  db: Kysely<UsersDb>,
  organisationId: string,
  inTransaction?: (trx: Kysely<UsersDb>) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('sso_providers')
      .where('organisation_id', '=', organisationId)
      .executeTakeFirst();
    await trx
      .updateTable('organisations')
      .set({ sso_config: null })
      .where('id', '=', organisationId)
      .execute();
    if (Number(deleted.numDeletedRows) > 0) await inTransaction?.(trx);
    return Number(deleted.numDeletedRows) > 0;
  });
}
