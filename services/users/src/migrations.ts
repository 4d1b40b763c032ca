import type { Migration } from '@acme/db';
import { rateLimitTableStatements } from '@acme/db/rate-limit';
import { RATE_LIMIT_TABLE } from './http/rate-limit.ts';

/**
 * A table of lowercase names (mail domains, Microsoft tenants) that each lead to one organisation,
 * and its index by organisation: migrations `first` and `first + 1`.
 */
function organisationNames(first: number, table: string, name: string): Migration[] {
  const number = (n: number) => String(n).padStart(3, '0');
  return [
    {
      name: `${number(first)}_${table}`,
      sql: `create table ${table} (
      ${name} text primary key check (${name} = lower(${name})),
      organisation_id uuid not null references organisations(id) on delete cascade
    )`,
    },
    {
      name: `${number(first + 1)}_${table}_organisation_id`,
      sql: `create index ${table}_organisation_id on ${table} (organisation_id)`,
    },
  ];
}

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
  ...organisationNames(2, 'organisation_domains', 'domain'),
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
  {
    name: '008_invitations',
    sql: `create table invitations (
      id uuid primary key,
      organisation_id uuid not null references organisations(id),
      user_id uuid not null unique references users(id) on delete cascade,
      identity_id uuid not null,
      state text not null check (state in ('pending', 'accepted', 'revoked')),
      recovery_flow_id text not null,
      expires_at timestamptz not null,
      send_count integer not null default 1,
      last_sent_at timestamptz not null,
      accepted_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null
    )`,
  },
  {
    name: '009_invitations_organisation_id',
    sql: 'create index invitations_organisation_id on invitations (organisation_id, created_at)',
  },
  {
    name: '010_invitation_flows',
    sql: `create table invitation_flows (
      flow_id text primary key,
      invitation_id uuid not null references invitations(id) on delete cascade,
      issued_at timestamptz not null,
      superseded_at timestamptz
    )`,
  },
  {
    name: '011_terms_acceptances',
    sql: `create table terms_acceptances (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      document text not null check (document in ('terms', 'privacy')),
      version text not null,
      accepted_at timestamptz not null,
      ip_address text,
      user_agent text,
      source text not null check (source in ('user', 'operator'))
    )`,
  },
  {
    name: '012_terms_acceptances_user',
    sql: 'create index terms_acceptances_user on terms_acceptances (user_id, document, version)',
  },
  {
    name: '013_git_auth_states',
    sql: `create table git_auth_states (
      state_hash text primary key,
      user_id uuid not null references users(id) on delete cascade,
      flow text not null,
      redirect_uri text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`,
  },
  {
    name: '014_git_auth_states_user',
    sql: 'create index git_auth_states_user on git_auth_states (user_id, created_at)',
  },
  {
    name: '015_git_links',
    sql: `create table git_links (
      user_id uuid primary key references users(id) on delete cascade,
      provider text not null,
      host_user_id text not null,
      login text not null,
      linked_at timestamptz not null
    )`,
  },
  {
    // API clients of an organisation; the secret lives (hashed) in the authorization server only.
    name: '180_api_clients',
    sql: `create table api_clients (
      id text primary key,
      organisation_id uuid not null references organisations(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      scope_groups jsonb not null default '[]'::jsonb,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null,
      revoked_at timestamptz
    )`,
  },
  {
    name: '181_api_clients_organisation_id',
    sql: 'create index api_clients_organisation_id on api_clients (organisation_id, created_at)',
  },
  ...organisationNames(160, 'organisation_m365_tenants', 'tenant_id'),
  {
    name: '162_marketplace_subscriptions',
    sql: `create table marketplace_subscriptions (
      id text primary key,
      organisation_id uuid not null references organisations(id) on delete cascade,
      tenant_id text not null,
      offer_id text not null,
      plan_id text not null,
      quantity integer not null,
      status text not null check (status in ('Subscribed', 'Suspended', 'Unsubscribed')),
      purchaser_email text not null,
      activated_at timestamptz not null,
      updated_at timestamptz not null
    )`,
  },
  {
    name: '163_marketplace_subscriptions_organisation_id',
    sql: 'create index marketplace_subscriptions_organisation_id on marketplace_subscriptions (organisation_id)',
  },
  {
    name: '164_marketplace_webhook_events',
    sql: `create table marketplace_webhook_events (
      id text primary key,
      subscription_id text not null,
      action text not null,
      received_at timestamptz not null
    )`,
  },
  {
    name: '140_sso_providers',
    sql: `create table sso_providers (
      provider_id text primary key check (provider_id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      organisation_id uuid not null unique references organisations(id) on delete cascade,
      issuer text not null,
      client_id text not null,
      client_secret_enc text not null,
      scopes jsonb not null,
      claim_mapping jsonb not null,
      jit boolean not null,
      userinfo boolean not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
  },
  {
    // The identity session that started a source-code-host connection: only it may finish it.
    name: '200_git_auth_states_session',
    sql: 'alter table git_auth_states add column session_id text',
  },
  {
    // Issue 20 repair: marketplace activation used to make any member of the buyer's tenant who
    // opened the landing-page link an org-admin. This table lists, for review, the org-admins of
    // organisations with marketplace subscriptions who bought none of them. Nothing is demoted here:
    // an operator may have made them org-admin on purpose (docs/security.md, "Microsoft 365").
    name: '230_m365_org_admin_review',
    sql: `create table m365_org_admin_review (
      user_id uuid primary key,
      organisation_id uuid not null,
      email text not null,
      purchaser_emails jsonb not null,
      found_at timestamptz not null default now()
    )`,
  },
  {
    name: '231_m365_org_admin_review_fill',
    sql: `insert into m365_org_admin_review (user_id, organisation_id, email, purchaser_emails)
      select u.id, u.organisation_id, u.email, jsonb_agg(distinct lower(s.purchaser_email))
      from users u
      join marketplace_subscriptions s on s.organisation_id = u.organisation_id
      where u.role = 'org-admin'
      group by u.id, u.organisation_id, u.email
      having not bool_or(lower(s.purchaser_email) = lower(u.email))`,
  },
  {
    // Issue 20, item 14: an organisation may enforce SSO (no password sign-in or recovery for its
    // domains), with one break-glass org-admin the operator exempts.
    name: '232_sso_enforce',
    sql: 'alter table sso_providers add column enforce boolean not null default false',
  },
  {
    name: '233_sso_break_glass',
    sql: 'alter table sso_providers add column break_glass_user_id uuid references users(id) on delete set null',
  },
  {
    // Issue 24: the organisation admin console deactivates members without deleting them.
    name: '270_users_deactivated_at',
    sql: 'alter table users add column deactivated_at timestamptz',
  },
  {
    // Issue 24: the security event log. No foreign keys: events outlive what they describe.
    name: '271_security_events',
    sql: `create table security_events (
      id uuid primary key,
      organisation_id uuid not null,
      occurred_at timestamptz not null,
      type text not null check (length(type) between 1 and 64),
      actor_kind text not null check (actor_kind in ('person', 'operator', 'system')),
      actor_id uuid,
      subject_id uuid,
      ip text,
      request_id text,
      details jsonb not null default '{}'::jsonb
    )`,
  },
  {
    name: '272_security_events_organisation_time',
    sql: 'create index security_events_organisation_time on security_events (organisation_id, occurred_at desc, id desc)',
  },
  {
    // "Filter by person": the console lists one member's events newest first.
    name: '273_security_events_subject_time',
    sql: 'create index security_events_subject_time on security_events (organisation_id, subject_id, occurred_at desc, id desc)',
  },
  {
    // The retention job deletes the oldest events across organisations.
    name: '274_security_events_time',
    sql: 'create index security_events_time on security_events (occurred_at)',
  },
  {
    // Issue 24: the console's Test sign-in. One row per started test, bound to the admin who started
    // it; the state is kept as a hash and is spent by its first use.
    name: '330_sso_test_sign_ins',
    sql: `create table sso_test_sign_ins (
      state_hash text primary key,
      organisation_id uuid not null references organisations(id) on delete cascade,
      user_id uuid not null references users(id) on delete cascade,
      issuer text not null,
      nonce text not null,
      code_verifier text not null,
      redirect_uri text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`,
  },
  {
    name: '331_sso_test_sign_ins_expires_at',
    sql: 'create index sso_test_sign_ins_expires_at on sso_test_sign_ins (expires_at)',
  },
  {
    // Issue 24: trusted networks (ManageIPWhitelist), one allow-list of CIDR ranges per organisation.
    name: '340_organisation_trusted_networks',
    sql: `create table organisation_trusted_networks (
      organisation_id uuid primary key references organisations(id) on delete cascade,
      ranges jsonb not null default '[]'::jsonb,
      updated_at timestamptz not null,
      updated_by uuid
    )`,
  },
  {
    // Issue 25: an organisation may open self sign-up for its domains (off unless the operator turns it on).
    name: '350_organisation_self_signup',
    sql: 'alter table organisations add column self_signup boolean not null default false',
  },
  {
    // Issue 26: a provider speaks OIDC (as before) or SAML 2.0. A SAML provider has no client, and
    // keeps its IdP metadata (parsed, with the last good copy of the XML) in `saml`. For SAML the
    // `issuer` column holds the IdP's entity id, so SSO links stay keyed by organisation + issuer.
    name: '400_sso_providers_protocol',
    sql: `alter table sso_providers
      add column protocol text not null default 'oidc' check (protocol in ('oidc', 'saml')),
      add column saml jsonb,
      alter column client_id drop not null,
      alter column client_secret_enc drop not null,
      alter column scopes drop not null,
      alter column claim_mapping drop not null,
      alter column userinfo drop not null,
      add constraint sso_providers_protocol_fields check (
        (protocol = 'oidc' and saml is null and client_id is not null and client_secret_enc is not null
          and scopes is not null and claim_mapping is not null and userinfo is not null)
        or (protocol = 'saml' and saml is not null and client_id is null and client_secret_enc is null
          and scopes is null and claim_mapping is null and userinfo is null)
      )`,
  },
  {
    // Issue 26: SCIM bearer tokens, per organisation; only the token's SHA-256 is kept.
    name: '420_scim_tokens',
    sql: `create table scim_tokens (
      id uuid primary key,
      organisation_id uuid not null references organisations(id) on delete cascade,
      name text not null check (length(name) between 1 and 100),
      token_hash text not null unique,
      created_by text not null,
      created_at timestamptz not null,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`,
  },
  {
    name: '421_scim_tokens_organisation_id',
    sql: 'create index scim_tokens_organisation_id on scim_tokens (organisation_id)',
  },
  {
    // Issue 26: a person the directory provisioned. deleted_at: the directory deleted them (the
    // user row stays, deactivated, its address freed; the address it had is kept here for the audit).
    name: '422_scim_users',
    sql: `create table scim_users (
      user_id uuid primary key references users(id) on delete cascade,
      organisation_id uuid not null references organisations(id) on delete cascade,
      external_id text,
      user_name text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz
    )`,
  },
  {
    name: '423_scim_users_external_id',
    sql: `create unique index scim_users_external_id on scim_users (organisation_id, external_id)
      where deleted_at is null and external_id is not null`,
  },
  {
    name: '424_scim_groups',
    sql: `create table scim_groups (
      id uuid primary key,
      organisation_id uuid not null references organisations(id) on delete cascade,
      display_name text not null check (length(display_name) between 1 and 256),
      external_id text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
  },
  {
    name: '425_scim_groups_display_name',
    sql: 'create unique index scim_groups_display_name on scim_groups (organisation_id, display_name)',
  },
  {
    name: '426_scim_group_members',
    sql: `create table scim_group_members (
      group_id uuid not null references scim_groups(id) on delete cascade,
      user_id uuid not null references users(id) on delete cascade,
      primary key (group_id, user_id)
    )`,
  },
  {
    name: '427_scim_group_members_user_id',
    sql: 'create index scim_group_members_user_id on scim_group_members (user_id)',
  },
  {
    // Issue 26: how the directory's groups map to a role and scope groups, per organisation.
    name: '428_scim_settings',
    sql: `create table scim_settings (
      organisation_id uuid primary key references organisations(id) on delete cascade,
      group_mappings jsonb not null default '[]'::jsonb,
      updated_at timestamptz not null
    )`,
  },
  {
    // Issue 26: a SCIM client (the organisation's directory) is an actor of its own.
    name: '429_security_events_actor_kind_drop',
    sql: 'alter table security_events drop constraint security_events_actor_kind_check',
  },
  {
    name: '430_security_events_actor_kind_directory',
    sql: `alter table security_events add constraint security_events_actor_kind_check
      check (actor_kind in ('person', 'operator', 'system', 'directory'))`,
  },
  // The repository's one rate limiter (`@acme/db/rate-limit`): its table replaces the service's
  // own counters. Running windows start again, which at worst grants one fresh window.
  { name: '431_rate_limits', sql: rateLimitTableStatements(RATE_LIMIT_TABLE)[0] },
  { name: '432_rate_limits_window_start', sql: rateLimitTableStatements(RATE_LIMIT_TABLE)[1] },
  { name: '433_rate_limit_counters_drop', sql: 'drop table rate_limit_counters' },
  {
    // Issue 35: the organisation's events feed (`GET /console/events`) and the webhooks' outbox. The
    // user service's own events are written here in the transaction that records them; the identity
    // service's security events are relayed here. `feed_seq` is given after commit (@acme/db/event-feed).
    // Like security_events, no foreign key: an event may outlive its organisation (kept for retention).
    name: '450_event_feed',
    sql: `create table event_feed (
      id uuid primary key,
      organisation_id uuid not null,
      occurred_at timestamptz not null,
      type text not null,
      payload jsonb not null,
      feed_seq bigint unique
    )`,
  },
  {
    name: '451_event_feed_unnumbered',
    sql: 'create index event_feed_unnumbered on event_feed (occurred_at, id) where feed_seq is null',
  },
  {
    name: '452_event_feed_organisation',
    sql: 'create index event_feed_organisation on event_feed (organisation_id, feed_seq)',
  },
  {
    name: '453_event_feed_counter',
    sql: `create table event_feed_counter (id int primary key check (id = 1), last bigint not null)`,
  },
  { name: '454_event_feed_counter_row', sql: 'insert into event_feed_counter (id, last) values (1, 0)' },
  {
    // Where each follower of a feed has got to: `webhooks` (the fan-out of event_feed into deliveries)
    // and `identity` (the relay of the identity service's feed into event_feed).
    name: '455_feed_followers',
    sql: `create table feed_followers (name text primary key, position text not null)`,
  },
  {
    name: '456_feed_followers_rows',
    sql: `insert into feed_followers (name, position) values ('webhooks', '0'), ('identity', '')`,
  },
  {
    name: '457_webhook_endpoints',
    sql: `create table webhook_endpoints (
      id uuid primary key,
      organisation_id uuid not null references organisations(id) on delete cascade,
      url text not null,
      event_types jsonb not null default '[]'::jsonb,
      state text not null check (state in ('active', 'paused', 'disabled')),
      disabled_reason text,
      secret text not null,
      previous_secret text,
      previous_secret_until timestamptz,
      failing_since timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
  },
  {
    name: '458_webhook_endpoints_organisation',
    sql: 'create index webhook_endpoints_organisation on webhook_endpoints (organisation_id)',
  },
  {
    name: '459_webhook_deliveries',
    sql: `create table webhook_deliveries (
      id uuid primary key,
      endpoint_id uuid not null references webhook_endpoints(id) on delete cascade,
      event_id uuid not null,
      event_type text not null,
      body text not null,
      status text not null check (status in ('pending', 'delivered', 'failed', 'abandoned')),
      attempts int not null default 0,
      last_response_status int,
      last_error text,
      last_attempt_at timestamptz,
      next_attempt_at timestamptz,
      retry_until timestamptz not null,
      created_at timestamptz not null,
      unique (endpoint_id, event_id)
    )`,
  },
  {
    name: '460_webhook_deliveries_due',
    sql: `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status in ('pending', 'failed')`,
  },
  {
    name: '461_webhook_deliveries_endpoint',
    sql: 'create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id desc)',
  },
  {
    // Cost at size (issue 38): the console lists an organisation's members by address, page by page,
    // read in index order rather than sorting the organisation's 50,000 people for each page.
    name: '538_users_organisation_email',
    sql: 'create index users_organisation_email on users (organisation_id, email)',
  },
  {
    // SCIM lists an organisation's people in (created_at, id) order; deep pages continue by keyset
    // from the previous page's last row (scim/users.ts), a range scan on this index. The role rides
    // along so that the list's total (provider staff excluded) is counted from the index alone.
    name: '539_users_organisation_created',
    sql: 'create index users_organisation_created on users (organisation_id, created_at, id) include (role)',
  },
  {
    // The console's member search matches the start of the address, the full name or the last name
    // (console/members.ts): one index range each within the organisation.
    name: '540_users_search_email',
    sql: 'create index users_search_email on users (organisation_id, email text_pattern_ops)',
  },
  {
    name: '541_users_search_name',
    sql: "create index users_search_name on users (organisation_id, lower(first_name || ' ' || last_name) text_pattern_ops)",
  },
  {
    name: '542_users_search_last_name',
    sql: 'create index users_search_last_name on users (organisation_id, lower(last_name) text_pattern_ops)',
  },
  {
    // SCIM's lists leave out the people the directory deleted: a few, found through this index.
    name: '543_scim_users_deleted',
    sql: 'create index scim_users_deleted on scim_users (user_id) where deleted_at is not null',
  },
  {
    // An organisation's own web app (authorization code) beside its client-credentials clients:
    // which kind each API client is, and a web app's redirect URIs as registered (for the console's list).
    name: '560_api_clients_kind',
    sql: `alter table api_clients
      add column kind text not null default 'client_credentials' check (kind in ('client_credentials', 'web')),
      add column redirect_uris jsonb not null default '[]'::jsonb`,
  },
  {
    // Retention (issue 38): the feed is trimmed with the log it mirrors, oldest first; each batch
    // finds its rows here instead of reading the whole feed.
    name: '600_event_feed_time',
    sql: 'create index event_feed_time on event_feed (occurred_at)',
  },
  {
    // Finished deliveries go after WEBHOOK_DELIVERIES_RETENTION_DAYS; pending and failing ones stay.
    name: '601_webhook_deliveries_finished',
    sql: `create index webhook_deliveries_finished on webhook_deliveries (created_at) where status in ('delivered', 'abandoned')`,
  },
  {
    name: '602_git_auth_states_expires_at',
    sql: 'create index git_auth_states_expires_at on git_auth_states (expires_at)',
  },
  {
    // An organisation's own event retention (issue 38): null keeps SECURITY_EVENTS_RETENTION_DAYS.
    name: '610_organisations_events_retention',
    sql: 'alter table organisations add column events_retention_days integer check (events_retention_days >= 1)',
  },
  {
    // The retention job trims one organisation's feed by age through this index.
    name: '611_event_feed_organisation_time',
    sql: 'create index event_feed_organisation_time on event_feed (organisation_id, occurred_at)',
  },
  {
    // The retention job reads the few organisations that set their own retention.
    name: '612_organisations_events_retention_set',
    sql: 'create index organisations_events_retention on organisations (id) where events_retention_days is not null',
  },
];
