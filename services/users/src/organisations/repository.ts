import type { Kysely } from 'kysely';
import type { UsersDb } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import type { CreateOrganisationInput, Organisation } from './schemas.ts';

interface OrganisationRow {
  id: string;
  name: string;
  products: string[];
  subscription_status: 'subscribed' | 'not_subscribed';
  sso_config: { provider: string } | null;
  m365: boolean;
  created_at: Date;
}

function toOrganisation(row: OrganisationRow, domains: string[], tenantIds: string[] = []): Organisation {
  return {
    id: row.id,
    name: row.name,
    domains: [...domains].sort(),
    products: row.products,
    subscriptionStatus: row.subscription_status,
    sso: row.sso_config,
    m365: row.m365,
    m365TenantIds: [...tenantIds].sort(),
    createdAt: row.created_at.toISOString(),
  };
}

export async function insertOrganisation(
  db: Kysely<UsersDb>,
  id: string,
  input: CreateOrganisationInput,
  now: Date,
): Promise<Organisation> {
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('organisations')
        .values({
          id,
          name: input.name,
          products: JSON.stringify(input.products),
          subscription_status: input.subscriptionStatus,
          sso_config: input.sso === null ? null : JSON.stringify(input.sso),
          m365: input.m365,
          created_at: now,
        })
        .execute();
      await trx
        .insertInto('organisation_domains')
        .values(input.domains.map((domain) => ({ domain, organisation_id: id })))
        .execute();
      if (input.m365TenantIds.length > 0) {
        await trx
          .insertInto('organisation_m365_tenants')
          .values(input.m365TenantIds.map((tenantId) => ({ tenant_id: tenantId, organisation_id: id })))
          .execute();
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError(
        'DOMAIN_TAKEN',
        'One of the domains or Microsoft 365 tenants already belongs to another organisation.',
      );
    }
    throw error;
  }
  const created = await findOrganisation(db, id);
  if (!created) throw new Error('organisation vanished after insert');
  return created;
}

export async function findOrganisation(db: Kysely<UsersDb>, id: string): Promise<Organisation | null> {
  const row = await db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return null;
  const domains = await db
    .selectFrom('organisation_domains')
    .select('domain')
    .where('organisation_id', '=', id)
    .execute();
  const tenants = await db
    .selectFrom('organisation_m365_tenants')
    .select('tenant_id')
    .where('organisation_id', '=', id)
    .execute();
  return toOrganisation(
    row,
    domains.map((d) => d.domain),
    tenants.map((t) => t.tenant_id),
  );
}

export async function listOrganisations(db: Kysely<UsersDb>): Promise<Organisation[]> {
  const rows = await db
    .selectFrom('organisations')
    .selectAll()
    .orderBy('created_at')
    .orderBy('name')
    .orderBy('id')
    .execute();
  const domains = await db.selectFrom('organisation_domains').select(['domain', 'organisation_id']).execute();
  const byOrganisation = new Map<string, string[]>();
  for (const d of domains) {
    const list = byOrganisation.get(d.organisation_id) ?? [];
    list.push(d.domain);
    byOrganisation.set(d.organisation_id, list);
  }
  const tenants = await db
    .selectFrom('organisation_m365_tenants')
    .select(['tenant_id', 'organisation_id'])
    .execute();
  const tenantsByOrganisation = new Map<string, string[]>();
  for (const t of tenants) {
    tenantsByOrganisation.set(t.organisation_id, [
      ...(tenantsByOrganisation.get(t.organisation_id) ?? []),
      t.tenant_id,
    ]);
  }
  return rows.map((row) =>
    toOrganisation(row, byOrganisation.get(row.id) ?? [], tenantsByOrganisation.get(row.id) ?? []),
  );
}

/** What sign-in needs to know about the organisation owning an email domain. One indexed query. */
export interface DomainLoginSettings {
  sso_config: { provider: string } | null;
  m365: boolean;
  products: string[];
}

export async function findLoginSettingsByDomain(
  db: Kysely<UsersDb>,
  domain: string,
): Promise<DomainLoginSettings | null> {
  const row = await db
    .selectFrom('organisation_domains')
    .innerJoin('organisations', 'organisations.id', 'organisation_domains.organisation_id')
    .select(['organisations.sso_config', 'organisations.m365', 'organisations.products'])
    .where('organisation_domains.domain', '=', domain)
    .executeTakeFirst();
  return row ?? null;
}
