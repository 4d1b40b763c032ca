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
export async function upsertProvider(db: Kysely<UsersDb>, row: SsoProviderRow): Promise<void> {
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
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('SSO_PROVIDER_TAKEN', 'Another organisation already uses this provider id.');
    }
    throw error;
  }
}

export async function deleteProvider(db: Kysely<UsersDb>, organisationId: string): Promise<boolean> {
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
    return Number(deleted.numDeletedRows) > 0;
  });
}
