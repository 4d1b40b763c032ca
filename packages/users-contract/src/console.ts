// Wire types of the user service's organisation console API (`/console/*`), shared by the service
// that answers and the admin screens that call it.

/** One entry of the security event log, as `GET /console/organisations/{id}/events` lists it. */
export interface SecurityEvent {
  id: string;
  occurredAt: string;
  type: string;
  actorKind: string;
  actorId: string | null;
  subjectId: string | null;
  ip: string | null;
  requestId: string | null;
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
