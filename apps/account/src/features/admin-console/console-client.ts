import { getConfig } from '../../shared/config/env.ts';
import { HttpError, requestJson, type JsonRequestInit } from '../../shared/errors/http-error.ts';
import { tokenFetch } from '../../shared/oauth2/token-lifecycle.ts';
import type {
  ConsoleApiClient as ApiClient,
  ConsoleCreateApiClient,
  ConsoleInvitation as Invitation,
  ConsoleSelfSignUp,
  EventRetention,
  ConsoleSubscription as Subscription,
  Me,
  Member,
  MemberDetail,
  MemberList,
  Role,
  SecurityEvent,
} from '@acme/users-contract/console';
import type { SetTrustedNetworks, TrustedNetworks } from '@acme/users-contract/networks';
import type { ScimGroupMapping, ScimRole, ScimSettings, ScimToken } from '@acme/users-contract/console-scim';
import type {
  ConsoleSso,
  ConsoleSsoInput,
  SamlConnectionInput,
  SsoConnectionReport,
  SsoTestSignInResult,
  SsoTestSignInStarted,
} from '@acme/users-contract/console-sso';

// The user service's organisation console API (`/console/*`, docs/architecture.md). Every call
// carries the access token as a bearer header through the token module.

// The wire types are the contract's (`@acme/users-contract`), as the service answers them.
export { ROLES } from '@acme/users-contract/console';
export type { Invitation, Me, Member, MemberDetail, Role, SecurityEvent };

export type { ApiClient, Subscription, TrustedNetworks };

export { SCIM_ROLES } from '@acme/users-contract/console-scim';
export type { ScimGroupMapping, ScimRole, ScimSettings, ScimToken };

const withToken = tokenFetch(() => getConfig());

function call<T>(path: string, init: JsonRequestInit = {}): Promise<T> {
  return requestJson<T>(new URL(path, getConfig().usersUrl).toString(), { ...init, fetchImpl: withToken });
}

const org = (organisationId: string) => `/console/organisations/${encodeURIComponent(organisationId)}`;

export const consoleApi = {
  me: () => call<Me>('/console/me'),
  members: (organisationId: string, query: { q?: string; page: number; pageSize: number }) => {
    const params = new URLSearchParams({ page: String(query.page), pageSize: String(query.pageSize) });
    if (query.q) params.set('q', query.q);
    return call<MemberList>(`${org(organisationId)}/members?${params.toString()}`);
  },
  member: (organisationId: string, userId: string) =>
    call<MemberDetail>(`${org(organisationId)}/members/${encodeURIComponent(userId)}`),
  changeRole: (organisationId: string, userId: string, role: Role) =>
    call<Member>(`${org(organisationId)}/members/${encodeURIComponent(userId)}/role`, {
      method: 'POST',
      body: { role },
    }),
  memberAction: (
    organisationId: string,
    userId: string,
    action: 'deactivate' | 'reactivate' | 'end-sessions' | 'unlock' | 'reset-2fa',
  ) =>
    call<Member | null>(`${org(organisationId)}/members/${encodeURIComponent(userId)}/${action}`, {
      method: 'POST',
    }),
  invitations: (organisationId: string) =>
    call<{ invitations: Invitation[] }>(`${org(organisationId)}/invitations`),
  invite: (
    organisationId: string,
    body: { email: string; firstName: string; lastName: string; role: Role },
  ) => call<Invitation>(`${org(organisationId)}/invitations`, { method: 'POST', body }),
  invitationAction: (organisationId: string, invitationId: string, action: 'resend' | 'revoke') =>
    call<Invitation>(`${org(organisationId)}/invitations/${encodeURIComponent(invitationId)}/${action}`, {
      method: 'POST',
    }),
  apiClients: (organisationId: string) =>
    call<{ apiClients: ApiClient[] }>(`${org(organisationId)}/api-clients`),
  createApiClient: (organisationId: string, body: ConsoleCreateApiClient) =>
    call<ApiClient & { clientSecret: string }>(`${org(organisationId)}/api-clients`, {
      method: 'POST',
      body,
    }),
  revokeApiClient: (organisationId: string, clientId: string) =>
    call<ApiClient>(`${org(organisationId)}/api-clients/${encodeURIComponent(clientId)}/revoke`, {
      method: 'POST',
    }),
  subscription: (organisationId: string) => call<Subscription>(`${org(organisationId)}/subscription`),
  trustedNetworks: (organisationId: string) =>
    call<TrustedNetworks>(`${org(organisationId)}/trusted-networks`),
  setTrustedNetworks: (organisationId: string, body: SetTrustedNetworks) =>
    call<TrustedNetworks>(`${org(organisationId)}/trusted-networks`, { method: 'PUT', body }),
  selfSignUp: (organisationId: string) => call<ConsoleSelfSignUp>(`${org(organisationId)}/self-signup`),
  setSelfSignUp: (organisationId: string, body: { enabled: boolean }) =>
    call<ConsoleSelfSignUp>(`${org(organisationId)}/self-signup`, { method: 'PUT', body }),
  eventRetention: (organisationId: string) => call<EventRetention>(`${org(organisationId)}/event-retention`),
  setEventRetention: (organisationId: string, body: { retentionDays: number | null }) =>
    call<EventRetention>(`${org(organisationId)}/event-retention`, { method: 'PUT', body }),
  sso: (organisationId: string) => call<ConsoleSso>(`${org(organisationId)}/sso`),
  setSso: (organisationId: string, body: ConsoleSsoInput) =>
    call<ConsoleSso>(`${org(organisationId)}/sso`, { method: 'PUT', body }),
  removeSso: (organisationId: string) => call<null>(`${org(organisationId)}/sso`, { method: 'DELETE' }),
  /** The stored provider's, or (SAML) metadata not saved yet. */
  testSsoConnection: (organisationId: string, body: SamlConnectionInput | Record<string, never> = {}) =>
    call<SsoConnectionReport>(`${org(organisationId)}/sso/test-connection`, { method: 'POST', body }),
  startSsoTest: (organisationId: string) =>
    call<SsoTestSignInStarted>(`${org(organisationId)}/sso/test-sign-in`, { method: 'POST', body: {} }),
  completeSsoTest: (organisationId: string, body: { state: string; code?: string; error?: string }) =>
    call<SsoTestSignInResult>(`${org(organisationId)}/sso/test-sign-in/complete`, { method: 'POST', body }),
  scimTokens: (organisationId: string) => call<{ tokens: ScimToken[] }>(`${org(organisationId)}/scim/tokens`),
  createScimToken: (organisationId: string, body: { name: string }) =>
    call<{ id: string; name: string; createdAt: string; token: string }>(
      `${org(organisationId)}/scim/tokens`,
      {
        method: 'POST',
        body,
      },
    ),
  revokeScimToken: (organisationId: string, tokenId: string) =>
    call<null>(`${org(organisationId)}/scim/tokens/${encodeURIComponent(tokenId)}`, { method: 'DELETE' }),
  scimSettings: (organisationId: string) => call<ScimSettings>(`${org(organisationId)}/scim/settings`),
  setScimSettings: (organisationId: string, body: { groupMappings: ScimGroupMapping[] }) =>
    call<ScimSettings>(`${org(organisationId)}/scim/settings`, { method: 'PUT', body }),
  events: (organisationId: string, query: URLSearchParams) =>
    call<{ events: SecurityEvent[]; nextCursor: string | null }>(
      `${org(organisationId)}/events?${query.toString()}`,
    ),
  /** The CSV export as text (the bearer header rules out a plain link). */
  async eventsCsv(organisationId: string, query: URLSearchParams): Promise<string> {
    const url = new URL(`${org(organisationId)}/events.csv?${query.toString()}`, getConfig().usersUrl);
    const res = await withToken(url.toString(), { headers: { Accept: 'text/csv' } });
    const text = await res.text();
    if (!res.ok) throw new HttpError(res.status, res.statusText, safeJson(text));
    return text;
  },
};

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** One console call with the bearer token, and an organisation's path: for the sections with their own client. */
export { call as consoleCall, org as organisationPath };
