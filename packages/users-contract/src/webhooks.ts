// Wire types of the console's Webhooks section (`/console/organisations/{id}/webhooks…`), shared by
// the user service that answers and the admin screen that calls it. An endpoint's signing secret
// (`whsec_…`) is returned once, when it is created or rotated, and never again.

/**
 * The event types an endpoint can subscribe to. The security events the console shows, then the
 * organisation's own changes. An endpoint with no event types listed receives every type.
 */
export const WEBHOOK_EVENT_TYPES = [
  'session.signed_in',
  'session.sign_in_failed',
  'session.ended',
  'account.locked',
  'account.unlocked',
  'second_factor.enabled',
  'second_factor.disabled',
  'passkey.added',
  'passkey.removed',
  'password.changed',
  'member.added',
  'member.updated',
  'member.deactivated',
  'member.removed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'role.changed',
  'sso.changed',
  'scim.changed',
  'api_client.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `active` delivers; `paused` (by an org-admin) and `disabled` (after 24 h of failures) queue nothing. */
export type WebhookEndpointState = 'active' | 'paused' | 'disabled';

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Empty: every event type. */
  eventTypes: WebhookEventType[];
  state: WebhookEndpointState;
  /** Why the endpoint was disabled (or null): a sentence the console shows. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `GET …/webhooks` */
export interface WebhookEndpointList {
  endpoints: WebhookEndpoint[];
}

/** `POST …/webhooks` body; `PATCH …/webhooks/{endpointId}` takes any of these plus `state`. */
export interface WebhookEndpointInput {
  url: string;
  eventTypes?: WebhookEventType[];
}
export interface WebhookEndpointPatch {
  url?: string;
  eventTypes?: WebhookEventType[];
  state?: 'active' | 'paused';
}

/** `POST …/webhooks` (201) and `POST …/webhooks/{endpointId}/rotate-secret` (200): the secret, shown once. */
export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'abandoned';

export interface WebhookDelivery {
  id: string;
  /** The `webhook-id` header: the event's id, the same on every attempt and redelivery. */
  eventId: string;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** The receiver's last HTTP status, or null when it did not answer. */
  lastResponseStatus: number | null;
  /** Why the last attempt failed (timeout, refused address, redirect…), or null. */
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** `GET …/webhooks/{endpointId}/deliveries?after=<cursor>&limit=` (newest first). */
export interface WebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  /** Opaque cursor for the next page, or null at the end. */
  next: string | null;
}

/** `POST …/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver` (202). */
export interface WebhookRedelivery {
  delivery: WebhookDelivery;
}

/** Error codes of this section, in the console's `{errorCode, message}` shape. */
export const WEBHOOK_ERRORS = {
  /** The URL is not https (outside development), resolves to a private address, or is malformed; the message says which. */
  urlRefused: 'WEBHOOK_URL_REFUSED',
  notFound: 'WEBHOOK_NOT_FOUND',
  tooMany: 'WEBHOOK_LIMIT_REACHED',
} as const;
