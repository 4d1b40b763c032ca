// Wire shapes of the console's Webhooks section (`/console/organisations/{id}/webhooks…`) and of the
// organisation's events feed (`GET /console/events`), as zod schemas: the user service validates
// requests and answers with them and generates its OpenAPI document from them; the admin screen uses
// the types inferred from them. An endpoint's signing secret (`whsec_…`) is returned once, when it is
// created or rotated, and never again.

import { z } from 'zod';
import { securityEventSchema } from './console.ts';

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

/**
 * The type of the signed test request sent when an endpoint is saved (created, or its URL changed):
 * not an event, never queued or retried. The receiver must answer it with a 2xx status, at once and
 * without a redirect, or the save is refused (`WEBHOOK_URL_REFUSED`, with the reason).
 */
export const WEBHOOK_TEST_TYPE = 'webhook.test';

/** `active` delivers; `paused` (by an org-admin) and `disabled` (after 24 h of failures) queue nothing. */
export const webhookEndpointStateSchema = z.enum(['active', 'paused', 'disabled']);
export type WebhookEndpointState = z.infer<typeof webhookEndpointStateSchema>;

/** `…/webhooks/{endpointId}` */
export const endpointParamsSchema = z.object({ organisationId: z.uuid(), endpointId: z.uuid() }).strict();
/** `…/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver` */
export const deliveryParamsSchema = z
  .object({ organisationId: z.uuid(), endpointId: z.uuid(), deliveryId: z.uuid() })
  .strict();

const eventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

export const endpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  /** Empty: every event type. */
  eventTypes: z.array(eventTypeSchema),
  state: webhookEndpointStateSchema,
  /** Why the endpoint was disabled (or null): a sentence the console shows. */
  disabledReason: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type WebhookEndpoint = z.infer<typeof endpointSchema>;

/** `GET …/webhooks` */
export const endpointListSchema = z.object({ endpoints: z.array(endpointSchema) });
export type WebhookEndpointList = z.infer<typeof endpointListSchema>;

const urlSchema = z.string().min(1).max(2000);
const eventTypesSchema = z.array(eventTypeSchema).max(WEBHOOK_EVENT_TYPES.length * 2);

/** `POST …/webhooks` body; `PATCH …/webhooks/{endpointId}` takes any of these plus `state`. */
export const endpointInputSchema = z
  .object({ url: urlSchema, eventTypes: eventTypesSchema.optional() })
  .strict();
export type WebhookEndpointInput = z.infer<typeof endpointInputSchema>;
export const endpointPatchSchema = z
  .object({
    url: urlSchema.optional(),
    eventTypes: eventTypesSchema.optional(),
    state: z.enum(['active', 'paused']).optional(),
  })
  .strict();
export type WebhookEndpointPatch = z.infer<typeof endpointPatchSchema>;

/** `POST …/webhooks` (201) and `POST …/webhooks/{endpointId}/rotate-secret` (200): the secret, shown once. */
export const endpointWithSecretSchema = z.object({
  endpoint: endpointSchema,
  secret: z.string().startsWith('whsec_'),
});
export type WebhookEndpointWithSecret = z.infer<typeof endpointWithSecretSchema>;

export const webhookDeliveryStatusSchema = z.enum(['pending', 'delivered', 'failed', 'abandoned']);
export type WebhookDeliveryStatus = z.infer<typeof webhookDeliveryStatusSchema>;

export const deliverySchema = z.object({
  id: z.uuid(),
  /** The `webhook-id` header: the event's id, the same on every attempt and redelivery. */
  eventId: z.uuid(),
  eventType: eventTypeSchema,
  status: webhookDeliveryStatusSchema,
  attempts: z.number().int(),
  /** The receiver's last HTTP status, or null when it did not answer. */
  lastResponseStatus: z.number().int().nullable(),
  /** Why the last attempt failed (timeout, refused address, redirect…), or null. */
  lastError: z.string().nullable(),
  lastAttemptAt: z.iso.datetime().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type WebhookDelivery = z.infer<typeof deliverySchema>;

/** `GET …/webhooks/{endpointId}/deliveries?after=<cursor>&limit=` (newest first). */
export const deliveryPageQuerySchema = z
  .object({
    after: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
  })
  .strict();
export type WebhookDeliveryPageQuery = z.infer<typeof deliveryPageQuerySchema>;
export const deliveryPageSchema = z.object({
  deliveries: z.array(deliverySchema),
  /** Opaque cursor for the next page, or null at the end. */
  next: z.string().nullable(),
});
export type WebhookDeliveryPage = z.infer<typeof deliveryPageSchema>;

/** `POST …/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver` (202). */
export const redeliverySchema = z.object({ delivery: deliverySchema });
export type WebhookRedelivery = z.infer<typeof redeliverySchema>;

/** `GET /console/events?after=<cursor>&limit=` (oldest first after the cursor). */
export const feedQuerySchema = z
  .object({
    after: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();
/** `next` is always given: the cursor to ask with next time (the same one while nothing new came). */
export const feedPageSchema = z.object({ events: z.array(securityEventSchema), next: z.string() });
export type EventFeedPage = z.infer<typeof feedPageSchema>;

/** Error codes of this section, in the console's `{errorCode, message}` shape. */
export const WEBHOOK_ERRORS = {
  /**
   * The URL is not https (outside development), resolves to a private address, or is malformed, or
   * the test request sent at save was not answered with 2xx (a redirect, no answer in 5 s, an error
   * status); the message says which.
   */
  urlRefused: 'WEBHOOK_URL_REFUSED',
  notFound: 'WEBHOOK_NOT_FOUND',
  tooMany: 'WEBHOOK_LIMIT_REACHED',
} as const;
