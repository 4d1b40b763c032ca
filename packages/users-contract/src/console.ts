// Wire types of the user service's organisation console API (`/console/*`), shared by the service
// that answers and the admin screens that call it.

import { IDENTITY_SECURITY_EVENT_TYPES } from '@acme/identity-contract/security-events';

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
  'api_client.created',
  'api_client.revoked',
  'subscription.changed',
  'trusted_networks.changed',
  'scim.token_created',
  'scim.token_revoked',
  'scim.settings_changed',
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

/** One entry of the security event log, as `GET /console/organisations/{id}/events` lists it. */
export interface SecurityEvent {
  id: string;
  occurredAt: string;
  type: string;
  actorKind: string;
  actorId: string | null;
  subjectId: string | null;
  ip: string | null;
  /** The browser's user agent (identity service events; null for the user service's). */
  userAgent: string | null;
  requestId: string | null;
  /** Which service wrote it: `users` or `identity`. */
  source: 'users' | 'identity';
  details: Record<string, string>;
}

/** One of the organisation's API clients, as `GET /console/organisations/{id}/api-clients` lists it. */
export interface ConsoleApiClient {
  id: string;
  name: string;
  scopeGroups: string[];
  createdAt: string;
  /** The email of the person who created it; null when the operator did. */
  createdBy: string | null;
  revokedAt: string | null;
}

/** The organisation's subscription, as `GET /console/organisations/{id}/subscription` answers. */
export interface ConsoleSubscription {
  /** The organisation's own state: `subscribed` or `not_subscribed`. */
  status: string;
  /** Bought through the Microsoft marketplace. */
  m365: boolean;
  /** Its marketplace subscriptions, newest first (none outside the marketplace). */
  marketplace: {
    id: string;
    offerId: string;
    planId: string;
    quantity: number;
    status: string;
    activatedAt: string;
    updatedAt: string;
  }[];
}

/**
 * The organisation's self sign-up, as `GET`/`PUT /console/organisations/{id}/self-signup` answer
 * (issue 25, ManageOrganisationSettings). `blockedBy` says why it can not be turned on (null: it can).
 */
export interface ConsoleSelfSignUp {
  organisationId: string;
  enabled: boolean;
  /** The organisation's domains: addresses in them may sign up while it is on. */
  domains: string[];
  blockedBy: 'sso' | 'scim' | null;
}

/** The error code (403) of turning self sign-up on where it is blocked; the body's `reason` says why. */
export const SELF_SIGNUP_NOT_ALLOWED = 'SELF_SIGNUP_NOT_ALLOWED';
