import type { Migration } from '@acme/db';

const files: Migration[] = [
  {
    name: '001_identities',
    sql: `
create table identity_identities (
  id uuid primary key,
  schema_id text not null,
  state text not null,
  traits jsonb not null,
  metadata_public jsonb,
  metadata_admin jsonb,
  state_changed_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create table identity_credentials (
  id uuid primary key,
  identity_id uuid not null references identity_identities(id) on delete cascade,
  type text not null,
  config jsonb not null,
  version int not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (identity_id, type)
);
create table identity_credential_identifiers (
  identifier text not null,
  type text not null,
  identity_id uuid not null references identity_identities(id) on delete cascade,
  primary key (type, identifier)
);
create index identity_credential_identifiers_identity on identity_credential_identifiers(identity_id);
create table identity_verifiable_addresses (
  id uuid primary key,
  identity_id uuid not null references identity_identities(id) on delete cascade,
  value text not null,
  via text not null,
  verified boolean not null,
  status text not null,
  verified_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (via, value)
);
create index identity_verifiable_addresses_identity on identity_verifiable_addresses(identity_id);
create table identity_recovery_addresses (
  id uuid primary key,
  identity_id uuid not null references identity_identities(id) on delete cascade,
  value text not null,
  via text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (via, value)
);
create index identity_recovery_addresses_identity on identity_recovery_addresses(identity_id);
`,
  },
  {
    name: '002_sessions_flows',
    sql: `
create table identity_sessions (
  id uuid primary key,
  token_hash text not null unique,
  logout_token_hash text unique,
  identity_id uuid not null references identity_identities(id) on delete cascade,
  active boolean not null,
  aal text not null,
  authentication_methods jsonb not null,
  authenticated_at timestamptz not null,
  issued_at timestamptz not null,
  expires_at timestamptz not null,
  devices jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index identity_sessions_identity on identity_sessions(identity_id);
create table identity_flows (
  id uuid primary key,
  kind text not null,
  type text not null,
  state text not null,
  csrf_hash text,
  request_url text not null,
  return_to text,
  refresh boolean not null default false,
  requested_aal text not null default 'aal1',
  oauth2_login_challenge text,
  identity_id uuid references identity_identities(id) on delete cascade,
  session_id uuid,
  ui jsonb not null,
  internal jsonb not null default '{}'::jsonb,
  issued_at timestamptz not null,
  expires_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create table identity_errors (
  id uuid primary key,
  error jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
`,
  },
  {
    name: '003_throttle',
    sql: `
create table identity_login_throttle (
  identifier text primary key,
  failures int not null,
  locked_until timestamptz,
  updated_at timestamptz not null
);
create table identity_ip_throttle (
  ip text primary key,
  window_start timestamptz not null,
  failures int not null
);
`,
  },
  {
    name: '004_send_throttle',
    sql: `
create table identity_send_throttle (
  address text primary key,
  window_start timestamptz not null,
  sends int not null
);
`,
  },
  {
    name: '200_attempt_budgets',
    sql: `
create table identity_attempts (
  scope text not null,
  key text not null,
  window_start timestamptz not null,
  count int not null,
  primary key (scope, key)
);
alter table identity_login_throttle add column admitted boolean not null default true;
`,
  },
  {
    name: '140_oidc_states',
    sql: `
create table identity_oidc_states (
  state_hash text primary key,
  flow_id uuid not null,
  provider text not null,
  nonce text not null,
  code_verifier text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index identity_oidc_states_expires_at on identity_oidc_states (expires_at);
`,
  },
];

/**
 * Plain SQL, applied in order under the `identity` namespace; every table is prefixed `identity_`.
 * PGlite runs one statement per query, so each file is split into numbered single-statement steps.
 */
export const migrations: Migration[] = files.flatMap((file) =>
  file.sql
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter(Boolean)
    .map((sql, i) => ({ name: `${file.name}.${String(i + 1).padStart(2, '0')}`, sql })),
);
