import type { ColumnType, Selectable } from 'kysely';

type Json<T = unknown> = ColumnType<T, string, string>;
type Ts = ColumnType<Date, Date, Date>;

interface IdentityTable {
  id: string;
  schema_id: string;
  state: string;
  traits: Json<Record<string, unknown>>;
  metadata_public: ColumnType<unknown, string | null, string | null>;
  metadata_admin: ColumnType<unknown, string | null, string | null>;
  state_changed_at: Ts;
  created_at: Ts;
  updated_at: Ts;
}
interface CredentialTable {
  id: string;
  identity_id: string;
  type: string;
  config: Json<Record<string, unknown>>;
  version: number;
  created_at: Ts;
  updated_at: Ts;
}
interface CredentialIdentifierTable {
  identifier: string;
  type: string;
  identity_id: string;
}
interface VerifiableAddressTable {
  id: string;
  identity_id: string;
  value: string;
  via: string;
  verified: boolean;
  status: string;
  verified_at: ColumnType<Date | null, Date | null, Date | null>;
  created_at: Ts;
  updated_at: Ts;
}
interface RecoveryAddressTable {
  id: string;
  identity_id: string;
  value: string;
  via: string;
  created_at: Ts;
  updated_at: Ts;
}
interface SessionTable {
  id: string;
  token_hash: string;
  logout_token_hash: string | null;
  identity_id: string;
  active: boolean;
  aal: string;
  authentication_methods: Json<AuthMethod[]>;
  authenticated_at: Ts;
  issued_at: Ts;
  expires_at: Ts;
  devices: Json<Device[]>;
  created_at: Ts;
  updated_at: Ts;
}
export interface AuthMethod {
  method: string;
  aal: 'aal1' | 'aal2';
  completed_at: string;
  /** The organisation's identity provider, for method `oidc`. */
  provider?: string;
}
/** One sign-in at an organisation's identity provider in progress (strategies/oidc). */
interface OidcStateTable {
  state_hash: string;
  flow_id: string;
  provider: string;
  nonce: string;
  code_verifier: string;
  created_at: Ts;
  expires_at: Ts;
  used_at: ColumnType<Date | null, Date | null, Date | null>;
}
interface Device {
  id: string;
  ip_address: string;
  user_agent: string;
  location: string;
}
interface FlowTable {
  id: string;
  kind: string;
  type: string;
  state: string;
  csrf_hash: string | null;
  request_url: string;
  return_to: string | null;
  refresh: boolean;
  requested_aal: string;
  oauth2_login_challenge: string | null;
  identity_id: string | null;
  session_id: string | null;
  ui: Json<unknown>;
  internal: Json<Record<string, unknown>>;
  issued_at: Ts;
  expires_at: Ts;
  created_at: Ts;
  updated_at: Ts;
}
interface ErrorTable {
  id: string;
  error: Json<unknown>;
  created_at: Ts;
  updated_at: Ts;
}
interface LoginThrottleTable {
  identifier: string;
  failures: number;
  locked_until: ColumnType<Date | null, Date | null, Date | null>;
  updated_at: Ts;
  /** Whether the last admission (see throttle/attempts.ts) let the attempt through. */
  admitted: ColumnType<boolean, boolean | undefined, boolean>;
}
/** Fixed-window attempt budgets: `scope` names the limit, `key` what it counts (address, identity, IP). */
interface AttemptTable {
  scope: string;
  key: string;
  window_start: Ts;
  count: number;
}
export interface IdentityDb {
  identity_identities: IdentityTable;
  identity_credentials: CredentialTable;
  identity_credential_identifiers: CredentialIdentifierTable;
  identity_verifiable_addresses: VerifiableAddressTable;
  identity_recovery_addresses: RecoveryAddressTable;
  identity_sessions: SessionTable;
  identity_session_activity: { session_id: string; last_active_at: Ts };
  identity_flows: FlowTable;
  identity_errors: ErrorTable;
  identity_login_throttle: LoginThrottleTable;
  identity_attempts: AttemptTable;
  identity_oidc_states: OidcStateTable;
  identity_oidc_link_repairs: OidcLinkRepairTable;
  identity_security_events: SecurityEventTable;
  identity_webauthn_spent_challenges: { challenge: string; spent_at: Ts };
  identity_saml_requests: SamlRequestTable;
  identity_saml_spent_assertions: { assertion_id: string; expires_at: Ts };
}

/** An AuthnRequest sent for a login flow (strategies/saml). */
interface SamlRequestTable {
  request_id: string;
  flow_id: string;
  provider: string;
  created_at: Ts;
  expires_at: Ts;
  /** The validated person, between the ACS and the finish (JSON). */
  result: ColumnType<unknown, string | null, string | null>;
  answered_at: ColumnType<Date | null, Date | null, Date | null>;
  finished_at: ColumnType<Date | null, Date | null, Date | null>;
}

/** One security event (db/security-events.ts). */
interface SecurityEventTable {
  id: string;
  occurred_at: Ts;
  type: string;
  actor_kind: string;
  actor_id: string | null;
  subject_id: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: Json<Record<string, string>>;
  /** Its place in the operator's feed, given after commit (issue 35). */
  feed_seq: ColumnType<string | null, never, never>;
}

/** What the one-off repair of SSO links found (migration 221_oidc_links_by_provider_record). */
interface OidcLinkRepairTable {
  identifier: string;
  identity_id: string;
  provider: string;
  finding: 'rekeyed' | 'provider_deleted' | 'provider_of_another_organisation';
  organisation_id: string | null;
  issuer: string | null;
  subject: string;
  new_identifier: string | null;
  repaired_at: Date;
}

export type IdentityRow = Selectable<IdentityTable>;
export type CredentialRow = Selectable<CredentialTable>;
export type VerifiableAddressRow = Selectable<VerifiableAddressTable>;
export type RecoveryAddressRow = Selectable<RecoveryAddressTable>;
export type SessionRow = Selectable<SessionTable>;
export type FlowRow = Selectable<FlowTable>;
