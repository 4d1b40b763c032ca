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
  {
    // Every committed change that can alter a whoami answer announces the identity it concerns on
    // 'identity_session_changes', so that each instance's session cache can drop it. The triggers run
    // inside the writing transaction: the notice is delivered on commit and never for a rollback.
    // (Function bodies stay on one line: files are split into statements at a semicolon ending a line.)
    name: '210_session_notices',
    sql: `
create function identity_notify_identity_change() returns trigger language plpgsql as $$ begin if tg_op = 'DELETE' then perform pg_notify('identity_session_changes', old.id::text); else perform pg_notify('identity_session_changes', new.id::text); end if; return null; end $$;
create function identity_notify_identity_part_change() returns trigger language plpgsql as $$ begin if tg_op = 'DELETE' then perform pg_notify('identity_session_changes', old.identity_id::text); else perform pg_notify('identity_session_changes', new.identity_id::text); if tg_op = 'UPDATE' and old.identity_id is distinct from new.identity_id then perform pg_notify('identity_session_changes', old.identity_id::text); end if; end if; return null; end $$;
create function identity_notify_all_changed() returns trigger language plpgsql as $$ begin perform pg_notify('identity_session_changes', '*'); return null; end $$;
create trigger identity_identities_notify after update or delete on identity_identities
  for each row execute function identity_notify_identity_change();
create trigger identity_sessions_notify after update or delete on identity_sessions
  for each row execute function identity_notify_identity_part_change();
create trigger identity_credentials_notify after insert or update or delete on identity_credentials
  for each row execute function identity_notify_identity_part_change();
create trigger identity_verifiable_addresses_notify after insert or update or delete on identity_verifiable_addresses
  for each row execute function identity_notify_identity_part_change();
create trigger identity_recovery_addresses_notify after insert or update or delete on identity_recovery_addresses
  for each row execute function identity_notify_identity_part_change();
create trigger identity_identities_truncate_notify after truncate on identity_identities
  for each statement execute function identity_notify_all_changed();
create trigger identity_sessions_truncate_notify after truncate on identity_sessions
  for each statement execute function identity_notify_all_changed();
create trigger identity_credentials_truncate_notify after truncate on identity_credentials
  for each statement execute function identity_notify_all_changed();
create trigger identity_verifiable_addresses_truncate_notify after truncate on identity_verifiable_addresses
  for each statement execute function identity_notify_all_changed();
create trigger identity_recovery_addresses_truncate_notify after truncate on identity_recovery_addresses
  for each statement execute function identity_notify_all_changed();
`,
  },
  {
    // One counting mechanism (throttle/attempts.ts): the per-IP password failures and the code mail
    // sends moved to identity_attempts budgets ('ip:password', 'send:address'), counted before the
    // secret is checked. Running windows start again, which at worst grants one fresh window.
    name: '220_one_attempt_counter',
    sql: `
drop table identity_ip_throttle;
drop table identity_send_throttle;
create index identity_attempts_window_start on identity_attempts (window_start);
`,
  },
  {
    // Issue 20, item 4: SSO links were keyed by (provider id, subject) and outlived their provider, so
    // an organisation that took a freed provider id could sign in as another organisation's people.
    // Links are now keyed by the provider's record (organisation + issuer). This one-off repair looks
    // at every old link: a link whose provider still exists for the identity's own organisation is
    // re-keyed; a link whose provider was deleted, or whose id now names another organisation's
    // provider, is removed. Every link looked at stays listed in identity_oidc_link_repairs with its
    // finding (GET /admin/oidc/link-repairs), for the operator's report. The user service's tables are
    // read when they are there (one database); without them no provider exists, so no link can stay.
    // (The DO block stays on one line: files are split into statements at a semicolon ending a line.)
    name: '221_oidc_links_by_provider_record',
    sql: `
create table identity_oidc_link_repairs (
  identifier text not null,
  identity_id uuid not null,
  provider text not null,
  finding text not null check (finding in ('rekeyed', 'provider_deleted', 'provider_of_another_organisation')),
  organisation_id text,
  issuer text,
  subject text not null,
  new_identifier text,
  repaired_at timestamptz not null default now()
);
do $$ begin if to_regclass('sso_providers') is not null and to_regclass('users') is not null then execute $q$ insert into identity_oidc_link_repairs (identifier, identity_id, provider, finding, organisation_id, issuer, subject, new_identifier) select i.identifier, i.identity_id, split_part(i.identifier, ':', 1), case when p.provider_id is null then 'provider_deleted' when u.organisation_id is distinct from p.organisation_id then 'provider_of_another_organisation' else 'rekeyed' end, case when u.organisation_id = p.organisation_id then p.organisation_id::text end, case when u.organisation_id = p.organisation_id then p.issuer end, substr(i.identifier, length(split_part(i.identifier, ':', 1)) + 2), case when u.organisation_id = p.organisation_id then p.organisation_id::text || ':' || p.issuer || '#' || substr(i.identifier, length(split_part(i.identifier, ':', 1)) + 2) end from identity_credential_identifiers i left join sso_providers p on p.provider_id = split_part(i.identifier, ':', 1) left join users u on u.identity_id = i.identity_id where i.type = 'oidc' $q$; else insert into identity_oidc_link_repairs (identifier, identity_id, provider, finding, subject) select i.identifier, i.identity_id, split_part(i.identifier, ':', 1), 'provider_deleted', substr(i.identifier, length(split_part(i.identifier, ':', 1)) + 2) from identity_credential_identifiers i where i.type = 'oidc'; end if; end $$;
update identity_credential_identifiers i set identifier = r.new_identifier
  from identity_oidc_link_repairs r
  where i.type = 'oidc' and i.identifier = r.identifier and r.new_identifier is not null;
delete from identity_credential_identifiers i
  using identity_oidc_link_repairs r
  where i.type = 'oidc' and i.identifier = r.identifier and r.new_identifier is null;
update identity_credentials c set updated_at = now(), config = jsonb_build_object('providers', coalesce((select jsonb_agg(jsonb_build_object('provider', r.provider, 'organisationId', r.organisation_id, 'issuer', r.issuer, 'subject', r.subject)) from identity_oidc_link_repairs r where r.identity_id = c.identity_id and r.new_identifier is not null), '[]'::jsonb))
  where c.type = 'oidc' and exists (select 1 from identity_oidc_link_repairs r where r.identity_id = c.identity_id);
delete from identity_credentials c
  where c.type = 'oidc' and not exists (select 1 from identity_credential_identifiers i where i.identity_id = c.identity_id and i.type = 'oidc');
`,
  },
  {
    // When each session was last used (the account page's "last active"), written at most once per
    // 5 minutes (sessions/activity.ts). A table of its own with no change trigger, so a write never
    // invalidates the session cache that keeps whoami fast.
    name: '222_session_activity',
    sql: `
create table identity_session_activity (
  session_id uuid primary key references identity_sessions(id) on delete cascade,
  last_active_at timestamptz not null
);
`,
  },
  {
    // WebAuthn challenges already answered (passkeys and security keys): each challenge, made with its
    // flow and kept in the flow's state, is spent by the first answer that names it. Spending is one
    // insert on the primary key, so of parallel answers exactly one wins, whatever else rewrites the
    // flow. Rows are deleted a day after spending (db/cleanup.ts), when the challenge has expired anyway.
    name: '300_webauthn_spent_challenges',
    sql: `
create table identity_webauthn_spent_challenges (
  challenge text primary key,
  spent_at timestamptz not null
);
create index identity_webauthn_spent_challenges_spent_at on identity_webauthn_spent_challenges(spent_at);
`,
  },
  {
    // Issue 24: the identity service's own security event log (sign-ins, lockouts, 2FA, passwords,
    // recovery, sessions), written in the transaction of the change it records. No foreign key:
    // events outlive the identity they describe until the retention deletes them.
    name: '320_security_events',
    sql: `
create table identity_security_events (
  id uuid primary key,
  occurred_at timestamptz not null,
  type text not null check (length(type) between 1 and 64),
  actor_kind text not null check (actor_kind in ('person', 'operator', 'system')),
  actor_id uuid,
  subject_id uuid not null,
  ip text,
  user_agent text,
  request_id text,
  details jsonb not null default '{}'::jsonb
);
create index identity_security_events_subject_time on identity_security_events (subject_id, occurred_at desc, id desc);
create index identity_security_events_time on identity_security_events (occurred_at);
`,
  },
  {
    // SAML sign-ins (strategies/saml): the AuthnRequest sent for a flow (its id is the InResponseTo the
    // ACS expects; `result` holds the validated person between the ACS and the same-site finish), and
    // the assertion ids already used (one insert on the primary key: a replay finds its id taken).
    name: '400_saml_requests',
    sql: `
create table identity_saml_requests (
  request_id text primary key,
  flow_id uuid not null,
  provider text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  result jsonb,
  answered_at timestamptz,
  finished_at timestamptz
);
create index identity_saml_requests_flow on identity_saml_requests (flow_id);
create index identity_saml_requests_expires_at on identity_saml_requests (expires_at);
create table identity_saml_spent_assertions (
  assertion_id text primary key,
  expires_at timestamptz not null
);
create index identity_saml_spent_assertions_expires_at on identity_saml_spent_assertions (expires_at);
`,
  },
  {
    // Issue 35: the operator's cursor feed of every security event (GET /admin/security-events?after=).
    // A row's place, feed_seq, is given after it committed (@acme/db/event-feed), so a reader
    // following the feed never skips an event committed late.
    name: '450_security_event_feed',
    sql: `
alter table identity_security_events add column feed_seq bigint;
create unique index identity_security_events_feed_seq on identity_security_events (feed_seq);
create index identity_security_events_unnumbered on identity_security_events (occurred_at, id) where feed_seq is null;
create table identity_security_event_feed_counter (id int primary key check (id = 1), last bigint not null);
insert into identity_security_event_feed_counter (id, last) values (1, 0);
`,
  },
  {
    // Cost at size (issue 38): the cleanup (db/cleanup.ts) deletes in batches by these conditions;
    // without an index each batch scanned the whole table (a million sessions: every ten minutes,
    // thousands of full scans).
    name: '538_cleanup_indexes',
    sql: `
create index identity_flows_expires_at on identity_flows (expires_at);
create index identity_sessions_expires_at on identity_sessions (expires_at);
create index identity_sessions_revoked_updated_at on identity_sessions (updated_at) where active = false;
create index identity_errors_created_at on identity_errors (created_at);
create index identity_login_throttle_updated_at on identity_login_throttle (updated_at);
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
