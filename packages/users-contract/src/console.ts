// Wire types of the user service's organisation console API (`/console/*`), shared by the service
// that answers and the admin screens that call it.

import { IDENTITY_SECURITY_EVENT_TYPES } from '@acme/identity-contract/security-events';
import { z } from 'zod';

/** The event types the user service writes in its own log (issue 24). */
export const USERS_SECURITY_EVENT_TYPES = [
  'member.invited',
  'member.joined',
  'member.deactivated',
  'member.deleted',
  'member.reactivated',
  'member.role_changed',
  'member.sessions_ended',
  'member.unlocked',
  'member.two_factor_reset',
  'invitation.resent',
  'invitation.revoked',
  'sso.provider_changed',
  /** A SAML provider's daily metadata refresh failed: the last good copy stays (issue 26). */
  'sso.metadata_refresh_failed',
  'organisation.self_signup_changed',
  'organisation.event_retention_changed',
  'api_client.created',
  'api_client.revoked',
  'subscription.changed',
  'trusted_networks.changed',
  'scim.token_created',
  'scim.token_revoked',
  'scim.settings_changed',
  /**
   * A webhook endpoint added, edited (URL or event types), paused, resumed, its secret rotated, or
   * removed (issue 35). In the events feed; not delivered as webhooks (an endpoint's own settings
   * are the org-admins' business, and a delivery must never cause another).
   */
  'webhook.endpoint_created',
  'webhook.endpoint_changed',
  'webhook.endpoint_paused',
  'webhook.endpoint_resumed',
  'webhook.secret_rotated',
  'webhook.endpoint_deleted',
] as const;

/**
 * Every type the console's security event log lists: the user service's own and the identity
 * service's (sign-ins, lockouts, 2FA…), which the console merges by time. The one list the service's
 * filter and the admin screens share.
 */
export const SECURITY_EVENT_TYPES = [
  ...USERS_SECURITY_EVENT_TYPES,
  ...IDENTITY_SECURITY_EVENT_TYPES,
] as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** The product's 27 permissions, in the order the product defines them. */
export const PERMISSIONS = [
  'ViewDataBundles',
  'ManageDataBundles',
  'Reporting',
  'ViewOrganisations',
  'ManageOrganisations',
  'ManageOrganisationDataAccess',
  'ManageOrganisationSettings',
  'ManageOrganisationUsers',
  'ManageOrganisationTeams',
  'ViewGlobalSettings',
  'ManageGlobalSettings',
  'ConfigureSSO',
  'ManageIPWhitelist',
  'ViewUsers',
  'ViewEntitledTeams',
  'ViewAllTeams',
  'ManageAccessTokens',
  'ViewEntitledWorkspaces',
  'ManageEntitledWorkspaces',
  'UseResearchEnvironments',
  'ManageStrategyDeployments',
  'ViewBasicStrategyDeploymentDetails',
  'ViewExtendedStrategyDeploymentDetails',
  'ViewDataBrowser',
  'MagicManageOrganisationBilling',
  'MagicChatWithAgents',
  'MagicSuperAdmin',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** Roles, from least to most privileged. Each holds every permission of the roles before it. */
export const ROLES = ['member', 'admin', 'org-admin', 'super-admin'] as const;

export type Role = (typeof ROLES)[number];

/** An email address, trimmed and lower-cased (addresses are compared case-insensitively). */
export const emailSchema = z.string().trim().toLowerCase().pipe(z.email().max(254));

/** A scope group's name (`research`, `team:quant`). */
export const scopeGroupSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9:._-]*$/, 'must be a scope group name');

const MAX_PAGE_SIZE = 100;

const nameSchema = z.string().trim().min(1).max(100);

export const orgParamsSchema = z.object({ organisationId: z.uuid() }).strict();
export const memberParamsSchema = z.object({ organisationId: z.uuid(), userId: z.uuid() }).strict();
export const invitationParamsSchema = z.object({ organisationId: z.uuid(), invitationId: z.uuid() }).strict();
export const apiClientParamsSchema = z
  .object({ organisationId: z.uuid(), clientId: z.string().min(1).max(100) })
  .strict();

/** `GET …/members?q=&page=&pageSize=` */
export const listMembersQuerySchema = z
  .object({
    q: z.string().trim().max(200).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(25),
  })
  .strict();

/** `POST …/members/{userId}/role` */
export const changeRoleSchema = z.object({ role: z.enum(ROLES) }).strict();

/** `POST …/invitations` */
export const inviteSchema = z
  .object({ email: emailSchema, firstName: nameSchema, lastName: nameSchema, role: z.enum(ROLES) })
  .strict();

/** `GET …/events?subjectId=&type=&from=&to=&cursor=&limit=` */
export const listEventsQuerySchema = z
  .object({
    subjectId: z.uuid().optional(),
    type: z.enum(SECURITY_EVENT_TYPES).optional(),
    from: z.iso.datetime().optional(),
    to: z.iso.datetime().optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  })
  .strict();

/** `GET …/events.csv`: the list's filters, without paging. */
export const exportEventsQuerySchema = listEventsQuerySchema.omit({ cursor: true, limit: true }).strict();

/** A member of the organisation as the console lists them. */
export const memberSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: z.enum(ROLES),
  status: z.enum(['active', 'deactivated']),
  createdAt: z.iso.datetime(),
  deactivatedAt: z.iso.datetime().nullable(),
  /** `directory`: the organisation's SCIM group mapping sets this person's role (no console edits). */
  managedBy: z.enum(['directory']).nullable(),
});

export type Member = z.infer<typeof memberSchema>;

export const memberListSchema = z.object({
  members: z.array(memberSchema),
  /** The members found; a floor when `totalExact` is false (a broad search stops counting). */
  total: z.number().int(),
  /** false: at least `total` members match, and a search counted no further. */
  totalExact: z.boolean(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

export type MemberList = z.infer<typeof memberListSchema>;

/** One entry of the security event log, as `GET /console/organisations/{id}/events` lists it. */
export const securityEventSchema = z.object({
  id: z.uuid(),
  organisationId: z.uuid(),
  occurredAt: z.iso.datetime(),
  type: z.string(),
  actorKind: z.string(),
  actorId: z.uuid().nullable(),
  subjectId: z.uuid().nullable(),
  ip: z.string().nullable(),
  /** The browser's user agent (identity service events; null for the user service's). */
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  /** Which service wrote it. */
  source: z.enum(['users', 'identity']),
  details: z.record(z.string(), z.string()),
});

export type SecurityEvent = z.infer<typeof securityEventSchema>;

export const memberDetailSchema = memberSchema.extend({
  /** The identity service's state of the person's identity (`active`, `inactive`), when known. */
  identityState: z.string().nullable(),
  /** Credential types the person signs in with (`password`, `oidc`, `webauthn`…), no configuration. */
  signInMethods: z.array(z.string()),
  /** A second factor is set up (null when the identity is unknown). */
  twoFactor: z.boolean().nullable(),
  /** The last successful sign-in (identity service), null when none is recorded. */
  lastSignIn: z.object({ at: z.iso.datetime(), method: z.string(), ip: z.string().nullable() }).nullable(),
  /** The password lockout (null when the identity is unknown). */
  lockout: z
    .object({
      locked: z.boolean(),
      lockedUntil: z.iso.datetime().nullable(),
      failedAttempts: z.number().int(),
    })
    .nullable(),
  /** The member's latest events of both services, newest first. */
  recentEvents: z.array(securityEventSchema),
});

export type MemberDetail = z.infer<typeof memberDetailSchema>;

export const eventListSchema = z.object({
  events: z.array(securityEventSchema),
  nextCursor: z.string().nullable(),
});

/** `GET /console/me`: the caller, their organisation, permissions and the roles they may assign. */
export const meSchema = z.object({
  userId: z.uuid(),
  email: z.string(),
  organisationId: z.uuid(),
  role: z.enum(ROLES),
  permissions: z.array(z.enum(PERMISSIONS)),
  assignableRoles: z.array(z.enum(ROLES)),
});

export type Me = z.infer<typeof meSchema>;

export const INVITATION_STATES = ['pending', 'accepted', 'expired', 'revoked'] as const;

/** An invitation, as the console and the operator API answer it. */
export const invitationSchema = z.object({
  id: z.uuid(),
  state: z.enum(INVITATION_STATES),
  organisationId: z.uuid(),
  userId: z.uuid(),
  identityId: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: z.enum(ROLES),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  lastSentAt: z.iso.datetime(),
  sendCount: z.number().int(),
  acceptedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});

export type ConsoleInvitation = z.infer<typeof invitationSchema>;

export const invitationListSchema = z.object({ invitations: z.array(invitationSchema) });

/** The kinds of API client: server to server, or the organisation's own web app signing people in. */
export const API_CLIENT_KINDS = ['client_credentials', 'web'] as const;
export type ApiClientKind = (typeof API_CLIENT_KINDS)[number];

/** How many redirect URIs (and post-logout redirect URIs) a web app may register. */
export const MAX_REDIRECT_URIS = 10;

/** A redirect URI as sent; the authorization server decides whether it is acceptable (https or loopback http, no fragment). */
const redirectUriSchema = z.string().trim().min(1).max(2000);

/** `POST …/api-clients` for a client-credentials client (`kind` may be left out). */
export const consoleCreateCredentialsClientSchema = z
  .object({
    kind: z.literal('client_credentials').optional(),
    name: nameSchema,
    scopeGroups: z.array(scopeGroupSchema).min(1).max(50),
  })
  .strict();

/** `POST …/api-clients` for the organisation's own web app (authorization code, exact redirect URIs). */
export const consoleCreateWebClientSchema = z
  .object({
    kind: z.literal('web'),
    name: nameSchema,
    redirectUris: z.array(redirectUriSchema).min(1).max(MAX_REDIRECT_URIS),
    postLogoutRedirectUris: z.array(redirectUriSchema).max(MAX_REDIRECT_URIS).optional(),
  })
  .strict();

/** `POST …/api-clients` */
export const consoleCreateApiClientSchema = z.union([
  consoleCreateCredentialsClientSchema,
  consoleCreateWebClientSchema,
]);

export type ConsoleCreateApiClient = z.input<typeof consoleCreateApiClientSchema>;

/** One of the organisation's API clients, as `GET /console/organisations/{id}/api-clients` lists it. */
export const consoleApiClientSchema = z.object({
  id: z.string(),
  kind: z.enum(API_CLIENT_KINDS),
  name: z.string(),
  /** A client-credentials client's scope groups (empty for a web app). */
  scopeGroups: z.array(z.string()),
  /** A web app's redirect URIs, matched exactly (empty for a client-credentials client). */
  redirectUris: z.array(z.string()),
  createdAt: z.iso.datetime(),
  /** The email of the person who created it; null when the operator did. */
  createdBy: z.string().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});

export type ConsoleApiClient = z.infer<typeof consoleApiClientSchema>;

export const consoleApiClientListSchema = z.object({ apiClients: z.array(consoleApiClientSchema) });

/** The creation answer: the only time the secret is shown. */
export const consoleCreatedApiClientSchema = consoleApiClientSchema.extend({ clientSecret: z.string() });

/** The organisation's subscription, as `GET /console/organisations/{id}/subscription` answers. */
export const subscriptionSchema = z.object({
  /** The organisation's own state: `subscribed` or `not_subscribed`. */
  status: z.string(),
  /** Bought through the Microsoft marketplace. */
  m365: z.boolean(),
  /** Its marketplace subscriptions, newest first (none outside the marketplace). */
  marketplace: z.array(
    z.object({
      id: z.string(),
      offerId: z.string(),
      planId: z.string(),
      quantity: z.number().int(),
      status: z.string(),
      activatedAt: z.iso.datetime(),
      updatedAt: z.iso.datetime(),
    }),
  ),
});

export type ConsoleSubscription = z.infer<typeof subscriptionSchema>;

/**
 * The organisation's self sign-up, as `GET`/`PUT /console/organisations/{id}/self-signup` answer
 * (ManageOrganisationSettings). `blockedBy` says why it can not be turned on (null: it can).
 */
export const consoleSelfSignUpSchema = z.object({
  organisationId: z.uuid(),
  enabled: z.boolean(),
  /** The organisation's domains: addresses in them may sign up while it is on. */
  domains: z.array(z.string()),
  blockedBy: z.enum(['sso', 'scim']).nullable(),
});

export type ConsoleSelfSignUp = z.infer<typeof consoleSelfSignUpSchema>;

/**
 * `PUT /console/organisations/{id}/event-retention`: how many days the organisation's security
 * events are kept (at least 1, at most the service's own retention); null: the service's.
 */
export const eventRetentionSettingSchema = z
  .object({ retentionDays: z.number().int().min(1).nullable() })
  .strict();

/** The organisation's event retention: its own (null: none) and the service's, which bounds it. */
export const eventRetentionSchema = z.object({
  organisationId: z.uuid(),
  retentionDays: z.number().int().nullable(),
  serviceRetentionDays: z.number().int(),
});

export type EventRetention = z.infer<typeof eventRetentionSchema>;

/** The error code (403) of turning self sign-up on where it is blocked; the body's `reason` says why. */
export const SELF_SIGNUP_NOT_ALLOWED = 'SELF_SIGNUP_NOT_ALLOWED';
