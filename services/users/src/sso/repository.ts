import { sql, type Kysely, type Transaction } from 'kysely';
import type { SamlSettingsJson, UsersDb } from '../db-types.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { AppError } from '../http/errors.ts';
import type { ClaimMapping } from './schemas.ts';

interface ProviderRowBase {
  provider_id: string;
  organisation_id: string;
  /** OIDC: the issuer URL. SAML: the IdP's entity id (SSO links are keyed by organisation + issuer). */
  issuer: string;
  jit: boolean;
  enforce: boolean;
  break_glass_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

interface OidcProviderRow extends ProviderRowBase {
  protocol: 'oidc';
  client_id: string;
  client_secret_enc: string;
  scopes: string[];
  claim_mapping: ClaimMapping;
  userinfo: boolean;
  saml: null;
}

export interface SamlProviderRow extends ProviderRowBase {
  protocol: 'saml';
  client_id: null;
  client_secret_enc: null;
  scopes: null;
  claim_mapping: null;
  userinfo: null;
  saml: SamlSettingsJson;
}

/** One organisation's provider; the table's check constraint guarantees one of the two shapes. */
export type SsoProviderRow = OidcProviderRow | SamlProviderRow;

export async function findProviderByOrganisation(
  db: Kysely<UsersDb>,
  organisationId: string,
): Promise<SsoProviderRow | undefined> {
  return (await db
    .selectFrom('sso_providers')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst()) as SsoProviderRow | undefined;
}

export async function findProviderById(
  db: Kysely<UsersDb>,
  providerId: string,
): Promise<SsoProviderRow | undefined> {
  return (await db
    .selectFrom('sso_providers')
    .selectAll()
    .where('provider_id', '=', providerId)
    .executeTakeFirst()) as SsoProviderRow | undefined;
}

/** The SAML providers whose metadata comes from a URL (the daily refresh's list). */
export async function listSamlProvidersWithUrl(db: Kysely<UsersDb>): Promise<SamlProviderRow[]> {
  const rows = await db
    .selectFrom('sso_providers')
    .selectAll()
    .where('protocol', '=', 'saml')
    .where(sql<boolean>`saml->>'metadataUrl' is not null`)
    .orderBy('provider_id')
    .execute();
  return rows as SamlProviderRow[];
}

/**
 * Stores a refresh's outcome (the entity id never changes by a refresh), unless the provider changed
 * since it was read: a save meanwhile (its `updated_at`), or another refresh (its `checkedAt`). A
 * refresh never overwrites what an admin saved. Returns whether it was stored.
 */
export async function updateSamlSettings(
  db: Kysely<UsersDb> | Transaction<UsersDb>,
  row: SamlProviderRow,
  saml: SamlSettingsJson,
): Promise<boolean> {
  const r = await db
    .updateTable('sso_providers')
    .set({ saml: JSON.stringify(saml) })
    .where('provider_id', '=', row.provider_id)
    .where('protocol', '=', 'saml')
    .where('updated_at', '=', row.updated_at)
    // Another instance's refresh of the same round got there first: one outcome, one event.
    .where(sql<boolean>`saml->>'checkedAt' is not distinct from ${row.saml.checkedAt}`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
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
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const values = {
    ...row,
    scopes: json(row.scopes),
    claim_mapping: json(row.claim_mapping),
    saml: json(row.saml),
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

/**
 * The SSO policy of the person an identity belongs to: their organisation's provider's `enforce`,
 * and whether they are its break-glass org-admin (named, and still an org-admin).
 */
export async function findIdentityPolicy(
  db: Kysely<UsersDb>,
  identityId: string,
): Promise<{ enforce: boolean; breakGlass: boolean } | undefined> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('sso_providers as p', 'p.organisation_id', 'u.organisation_id')
    .select([
      'p.enforce as enforce',
      'p.break_glass_user_id as breakGlassUserId',
      'u.id as userId',
      'u.role as role',
    ])
    .where('u.identity_id', '=', identityId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    enforce: row.enforce,
    breakGlass: row.breakGlassUserId === row.userId && row.role === 'org-admin',
  };
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
