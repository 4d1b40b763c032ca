import type { ColumnType, Generated } from 'kysely';

/** jsonb: read as a value, written as its JSON text. */
type Json<T> = ColumnType<T, string, string>;

interface OrganisationsTable {
  id: string;
  name: string;
  products: Json<string[]>;
  subscription_status: 'subscribed' | 'not_subscribed';
  sso_config: ColumnType<{ provider: string } | null, string | null, string | null>;
  m365: boolean;
  /** Self sign-up for the organisation's domains (issue 25); off by default. */
  self_signup: Generated<boolean>;
  /** Days its security events are kept (issue 38); null: SECURITY_EVENTS_RETENTION_DAYS. */
  events_retention_days: Generated<number | null>;
  created_at: Date;
}

interface OrganisationDomainsTable {
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
  /** Set while an organisation admin has deactivated the member (issue 24). */
  deactivated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** The counters of `@acme/db/rate-limit` (a row per limit and key). */
interface RateLimitsTable {
  scope: string;
  key: string;
  window_start: Date;
  count: number;
}

type StoredInvitationState = 'pending' | 'accepted' | 'revoked';

export interface InvitationsTable {
  id: string;
  organisation_id: string;
  user_id: string;
  identity_id: string;
  state: StoredInvitationState;
  recovery_flow_id: string;
  expires_at: Date;
  send_count: Generated<number>;
  last_sent_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

interface InvitationFlowsTable {
  flow_id: string;
  invitation_id: string;
  issued_at: Date;
  superseded_at: Date | null;
}

export type TermsDocument = 'terms' | 'privacy';

interface TermsAcceptancesTable {
  id: string;
  user_id: string;
  document: TermsDocument;
  version: string;
  accepted_at: Date;
  ip_address: string | null;
  user_agent: string | null;
  source: 'user' | 'operator';
}

interface GitAuthStatesTable {
  state_hash: string;
  user_id: string;
  flow: string;
  redirect_uri: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** The identity session that started it (null only for rows from before this was recorded). */
  session_id: string | null;
}

interface GitLinksTable {
  user_id: string;
  provider: string;
  host_user_id: string;
  login: string;
  linked_at: Date;
}

export interface ApiClientsTable {
  /** The authorization server's client id. */
  id: string;
  organisation_id: string;
  name: string;
  scope_groups: Json<string[]>;
  /** `client_credentials` (server to server) or `web` (the organisation's own sign-in app). */
  kind: Generated<'client_credentials' | 'web'>;
  /** A web app's redirect URIs (empty for client credentials). */
  redirect_uris: ColumnType<string[], string | undefined, string>;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

interface OrganisationM365TenantsTable {
  tenant_id: string;
  organisation_id: string;
}

type MarketplaceSubscriptionStatus = 'Subscribed' | 'Suspended' | 'Unsubscribed';

interface MarketplaceSubscriptionsTable {
  id: string;
  organisation_id: string;
  tenant_id: string;
  offer_id: string;
  plan_id: string;
  quantity: number;
  status: MarketplaceSubscriptionStatus;
  purchaser_email: string;
  activated_at: Date;
  updated_at: Date;
}

interface MarketplaceWebhookEventsTable {
  id: string;
  subscription_id: string;
  action: string;
  received_at: Date;
}

/** Json column that may be null (read null, written as JSON text or null). */
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

/** A SAML provider's IdP metadata and settings (issue 26; sso/saml-metadata.ts parses the XML). */
export interface SamlSettingsJson {
  /** Where the metadata comes from: refreshed daily from `metadataUrl`, or pasted once. */
  metadataUrl: string | null;
  /** The last good copy of the metadata XML (at most 1 MiB). */
  metadataXml: string;
  entityId: string;
  /** HTTP-Redirect binding. */
  ssoUrl: string;
  /** PEM; 1 or 2 (a rollover: both are accepted while the metadata lists both). */
  certificates: string[];
  attributes: { email: string; firstName: string; lastName: string; groups: string };
  allowIdpInitiated: boolean;
  /** When the stored copy was fetched (URL) or pasted (ISO 8601). */
  fetchedAt: string;
  /** The last refresh attempt from the URL, good or not (ISO 8601), null before the first. */
  checkedAt: string | null;
  /** Why the last refresh failed (a reason word), null when it worked. */
  refreshError: string | null;
}

interface SsoProvidersTable {
  provider_id: string;
  organisation_id: string;
  /** `oidc` (the default) or `saml` (issue 26). */
  protocol: Generated<'oidc' | 'saml'>;
  /** OIDC: the issuer URL. SAML: the IdP's entity id. */
  issuer: string;
  /** OIDC only, as the four below (null for SAML). */
  client_id: string | null;
  /** AES-256-GCM, see sso/secret-box.ts. */
  client_secret_enc: string | null;
  scopes: NullableJson<string[]>;
  claim_mapping: NullableJson<{ email: string; emailVerified: string; firstName: string; lastName: string }>;
  jit: boolean;
  userinfo: boolean | null;
  /** SAML only. */
  saml: NullableJson<SamlSettingsJson>;
  /** Password sign-in and recovery are refused for the organisation's domains. */
  enforce: Generated<boolean>;
  /** The one org-admin exempt from `enforce` (break-glass), set by the operator. */
  break_glass_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The user service's tables, as Kysely sees them. */
/** Issue 20 repair: org-admins of marketplace organisations who bought none of its subscriptions. */
interface M365OrgAdminReviewTable {
  user_id: string;
  organisation_id: string;
  email: string;
  purchaser_emails: string[];
  found_at: Date;
}

export interface UsersDb {
  organisations: OrganisationsTable;
  organisation_domains: OrganisationDomainsTable;
  users: UsersTable;
  rate_limits: RateLimitsTable;
  invitations: InvitationsTable;
  invitation_flows: InvitationFlowsTable;
  terms_acceptances: TermsAcceptancesTable;
  git_auth_states: GitAuthStatesTable;
  git_links: GitLinksTable;
  api_clients: ApiClientsTable;
  organisation_m365_tenants: OrganisationM365TenantsTable;
  marketplace_subscriptions: MarketplaceSubscriptionsTable;
  marketplace_webhook_events: MarketplaceWebhookEventsTable;
  sso_providers: SsoProvidersTable;
  m365_org_admin_review: M365OrgAdminReviewTable;
  security_events: SecurityEventsTable;
  organisation_trusted_networks: OrganisationTrustedNetworksTable;
  sso_test_sign_ins: SsoTestSignInsTable;
  scim_tokens: ScimTokensTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  scim_settings: ScimSettingsTable;
  event_feed: EventFeedTable;
  feed_followers: { name: string; position: string };
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** Issue 35: one event of an organisation's feed (its console wire shape in `payload`). */
interface EventFeedTable {
  id: string;
  organisation_id: string;
  occurred_at: Date;
  type: string;
  payload: Json<Record<string, unknown>>;
  /** Its place in the feed, given after commit (null until then). */
  feed_seq: ColumnType<string | null, never, never>;
}

/** Issue 35: an organisation's webhook endpoint; secrets sealed by the secret box. */
interface WebhookEndpointsTable {
  id: string;
  organisation_id: string;
  url: string;
  event_types: Json<string[]>;
  state: 'active' | 'paused' | 'disabled';
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Issue 35: one event for one endpoint, attempted until delivered or abandoned. */
interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed' | 'abandoned';
  attempts: Generated<number>;
  last_response_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  retry_until: Date;
  created_at: Date;
}

/** Issue 26: a SCIM bearer token of an organisation (its SHA-256 only). */
interface ScimTokensTable {
  id: string;
  organisation_id: string;
  name: string;
  token_hash: string;
  /** The email of the admin who created it. */
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** A person the directory provisioned (deleted_at: the directory deleted them; the row stays). */
interface ScimUsersTable {
  user_id: string;
  organisation_id: string;
  external_id: string | null;
  /** The SCIM userName (the address the person had, kept after a deletion frees it). */
  user_name: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

interface ScimGroupsTable {
  id: string;
  organisation_id: string;
  display_name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

interface ScimGroupMembersTable {
  group_id: string;
  user_id: string;
}

export interface ScimGroupMapping {
  group: string;
  role: 'user' | 'org-admin' | null;
  scopeGroups: string[];
}

interface ScimSettingsTable {
  organisation_id: string;
  group_mappings: Json<ScimGroupMapping[]>;
  updated_at: Date;
}

interface OrganisationTrustedNetworksTable {
  organisation_id: string;
  ranges: Json<string[]>;
  updated_at: Date;
  updated_by: string | null;
}

/** A Test sign-in the console started (issue 24): spent by its first callback. */
interface SsoTestSignInsTable {
  state_hash: string;
  organisation_id: string;
  user_id: string;
  issuer: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

interface SecurityEventsTable {
  id: string;
  organisation_id: string;
  occurred_at: Date;
  type: string;
  actor_kind: string;
  actor_id: string | null;
  subject_id: string | null;
  ip: string | null;
  request_id: string | null;
  details: Json<Record<string, string>>;
}
