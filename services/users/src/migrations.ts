import type { Migration } from '@acme/db';

/**
 * Namespace `users`. Plain SQL, one statement per migration (PGlite prepares each as one
 * statement), applied in order, never edited once released.
 */
export const migrations: Migration[] = [
  {
    name: '001_organisations',
    sql: `create table organisations (
      id uuid primary key,
      name text not null check (length(name) between 1 and 200),
      products jsonb not null default '[]'::jsonb,
      subscription_status text not null check (subscription_status in ('subscribed', 'not_subscribed')),
      sso_config jsonb,
      m365 boolean not null default false,
      created_at timestamptz not null
    )`,
  },
  {
    name: '002_organisation_domains',
    sql: `create table organisation_domains (
      domain text primary key check (domain = lower(domain)),
      organisation_id uuid not null references organisations(id) on delete cascade
    )`,
  },
  {
    name: '003_organisation_domains_organisation_id',
    sql: 'create index organisation_domains_organisation_id on organisation_domains (organisation_id)',
  },
  {
    name: '004_users',
    sql: `create table users (
      id uuid primary key,
      organisation_id uuid not null references organisations(id),
      email text not null unique check (email = lower(email)),
      first_name text not null,
      last_name text not null,
      role text not null check (role in ('member', 'admin', 'org-admin', 'super-admin')),
      scope_groups jsonb not null default '[]'::jsonb,
      identity_id uuid unique,
      created_at timestamptz not null
    )`,
  },
  {
    name: '005_users_organisation_id',
    sql: 'create index users_organisation_id on users (organisation_id)',
  },
  {
    name: '006_rate_limit_counters',
    sql: `create table rate_limit_counters (
      key text not null,
      window_start timestamptz not null,
      count integer not null,
      primary key (key, window_start)
    )`,
  },
  {
    name: '007_rate_limit_counters_window_start',
    sql: 'create index rate_limit_counters_window_start on rate_limit_counters (window_start)',
  },
];
