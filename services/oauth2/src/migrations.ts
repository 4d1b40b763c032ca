import type { Migration } from '@acme/db';
import { rateLimitTableStatements } from '@acme/db/rate-limit';

/** The counters of the per-IP limits (`@acme/db/rate-limit`'s table, migrations 160–162). */
export const RATE_LIMIT_TABLE = 'oauth2_rate_limits';

/**
 * Namespace `oauth2`. Plain SQL that runs on PostgreSQL and PGlite alike (one statement per
 * migration: prepared statements cannot hold several).
 */
export const migrations: Migration[] = [
  {
    // Every oidc-provider model (Session, Interaction, AuthorizationCode, RefreshToken, Grant, …)
    // plus our own records (LogoutRequest, LogoutVerifier, the JWT access-token index).
    name: '001_models',
    sql: `create table oauth2_models (
      model text not null,
      id text not null,
      payload jsonb not null,
      grant_id text,
      uid text,
      user_code text,
      expires_at timestamptz,
      consumed_at timestamptz,
      primary key (model, id))`,
  },
  {
    name: '002_models_grant_id',
    sql: 'create index oauth2_models_grant_id on oauth2_models (grant_id) where grant_id is not null',
  },
  {
    name: '003_models_uid',
    sql: 'create index oauth2_models_uid on oauth2_models (model, uid) where uid is not null',
  },
  {
    name: '004_models_user_code',
    sql: 'create index oauth2_models_user_code on oauth2_models (model, user_code) where user_code is not null',
  },
  {
    name: '005_models_expires_at',
    sql: 'create index oauth2_models_expires_at on oauth2_models (expires_at)',
  },
  {
    // Hydra's consent session (session.access_token / session.id_token), keyed by grant.
    name: '006_consent_sessions',
    sql: `create table oauth2_consent_sessions (
      grant_id text primary key,
      access_token jsonb not null,
      id_token jsonb not null,
      expires_at timestamptz not null,
      updated_at timestamptz not null default now())`,
  },
  {
    name: '007_consent_sessions_expires_at',
    sql: 'create index oauth2_consent_sessions_expires_at on oauth2_consent_sessions (expires_at)',
  },
  {
    // Signing keys (JWKS with private parts) and cookie keys: one row, created on first start.
    name: '008_keys',
    sql: `create table oauth2_keys (
      id text primary key,
      jwks jsonb not null,
      cookie_keys jsonb not null,
      created_at timestamptz not null default now())`,
  },
  {
    // The identity session a grant stands for (Hydra's accept-login identity_provider_session_id):
    // each refresh checks it is still active.
    name: '120_consent_sessions_identity_session',
    sql: 'alter table oauth2_consent_sessions add column identity_session_id text',
  },
  {
    name: '121_consent_sessions_subject',
    sql: 'alter table oauth2_consent_sessions add column subject text',
  },
  {
    // kid → {retiredAt} of signing keys replaced by a rotation (kept in the JWKS until their tokens expire).
    name: '122_keys_meta',
    sql: 'alter table oauth2_keys add column key_meta jsonb',
  },
  {
    // Signing keys withdrawn by `keys:revoke`: every instance refuses tokens they signed.
    name: '123_revoked_keys',
    sql: `create table oauth2_revoked_keys (
      kid text primary key,
      revoked_at timestamptz not null)`,
  },
  {
    // Fixed-window counters of the device grant's per-IP limits (shared by every instance).
    name: '130_rate_limits',
    sql: `create table oauth2_rate_limits (
      key text not null,
      window_start timestamptz not null,
      count integer not null,
      primary key (key, window_start))`,
  },
  {
    // RFC 8628 polling: the last poll of each device code (by hash) and its current interval.
    name: '131_device_polls',
    sql: `create table oauth2_device_polls (
      id text primary key,
      last_polled_at timestamptz not null,
      interval_s integer not null,
      expires_at timestamptz not null)`,
  },
  {
    // When the current signing keys started signing: OAUTH2_KEY_ROTATE_EVERY rotates them once this is
    // a period old (under the row lock, so one instance rotates per period). The private keys
    // (jwks) and cookie keys are sealed with OAUTH2_KEYS_SECRET by the service at its first start
    // with it (the key is in the configuration, not in SQL), and read in clear until then.
    name: '150_keys_signing_since',
    sql: 'alter table oauth2_keys add column signing_since timestamptz',
  },
  {
    // The repository's one rate limiter (`@acme/db/rate-limit`) keeps a row per limit and key: its
    // table replaces the one of 130. Running windows start again, which at worst grants one fresh window.
    name: '160_rate_limits_drop',
    sql: 'drop table oauth2_rate_limits',
  },
  { name: '161_rate_limits', sql: rateLimitTableStatements(RATE_LIMIT_TABLE)[0] },
  { name: '162_rate_limits_window_start', sql: rateLimitTableStatements(RATE_LIMIT_TABLE)[1] },
  {
    // Retention (issue 38): a device code's polling record goes with the code, at its expiry; the
    // cleanup finds the expired ones through this index.
    name: '600_device_polls_expires_at',
    sql: 'create index oauth2_device_polls_expires_at on oauth2_device_polls (expires_at)',
  },
  {
    // Retention (issue 38): when a grant was stored, so that the cleanup deletes a grant no code or
    // token needs any more once it is OAUTH2_IDLE_GRANT_RETENTION_HOURS old. Rows stored before this
    // migration count as old (a constant default: no table rewrite).
    name: '610_models_created_at',
    sql: "alter table oauth2_models add column created_at timestamptz not null default '-infinity'",
  },
  {
    // The idle-grant cleanup walks the grants by age through this index.
    name: '611_models_grant_created_at',
    sql: "create index oauth2_models_grant_created_at on oauth2_models (created_at, id) where model = 'Grant'",
  },
];
