import type { ColumnType, Generated } from 'kysely';

/** jsonb: read as a value, written as its JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface OrganisationsTable {
  id: string;
  name: string;
  products: Json<string[]>;
  subscription_status: 'subscribed' | 'not_subscribed';
  sso_config: ColumnType<{ provider: string } | null, string | null, string | null>;
  m365: boolean;
  created_at: Date;
}

export interface OrganisationDomainsTable {
  domain: string;
  organisation_id: string;
}

export interface UsersTable {
  id: string;
  organisation_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  scope_groups: Json<string[]>;
  identity_id: string | null;
  created_at: Date;
}

export interface RateLimitCountersTable {
  key: string;
  window_start: Date;
  count: Generated<number>;
}

/** The user service's tables, as Kysely sees them. */
export interface UsersDb {
  organisations: OrganisationsTable;
  organisation_domains: OrganisationDomainsTable;
  users: UsersTable;
  rate_limit_counters: RateLimitCountersTable;
}
