import { WEBHOOK_EVENT_TYPES } from '@acme/users-contract/webhooks';
import { z } from 'zod';
import { securityEventSchema } from '@acme/users-contract/console';

// The wire shapes of the console's Webhooks section and the events feed, checked at the route edge
// (the types they must match are in @acme/users-contract/webhooks).

export const endpointParamsSchema = z.object({ organisationId: z.uuid(), endpointId: z.uuid() }).strict();
export const deliveryParamsSchema = z
  .object({ organisationId: z.uuid(), endpointId: z.uuid(), deliveryId: z.uuid() })
  .strict();

const urlSchema = z.string().min(1).max(2000);
const eventTypesSchema = z.array(z.enum(WEBHOOK_EVENT_TYPES)).max(WEBHOOK_EVENT_TYPES.length * 2);

export const endpointInputSchema = z
  .object({ url: urlSchema, eventTypes: eventTypesSchema.optional() })
  .strict();

export const endpointPatchSchema = z
  .object({
    url: urlSchema.optional(),
    eventTypes: eventTypesSchema.optional(),
    state: z.enum(['active', 'paused']).optional(),
  })
  .strict();

export const endpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  state: z.enum(['active', 'paused', 'disabled']),
  disabledReason: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const endpointListSchema = z.object({ endpoints: z.array(endpointSchema) });
export const endpointWithSecretSchema = z.object({
  endpoint: endpointSchema,
  secret: z.string().startsWith('whsec_'),
});

const deliverySchema = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  status: z.enum(['pending', 'delivered', 'failed', 'abandoned']),
  attempts: z.number().int(),
  lastResponseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastAttemptAt: z.iso.datetime().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});

export const deliveryPageQuerySchema = z
  .object({
    after: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
  })
  .strict();
export const deliveryPageSchema = z.object({
  deliveries: z.array(deliverySchema),
  next: z.string().nullable(),
});
export const redeliverySchema = z.object({ delivery: deliverySchema });

/** `GET /console/events` and the operator's user-service feed. */
export const feedQuerySchema = z
  .object({
    after: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();
export const feedPageSchema = z.object({ events: z.array(securityEventSchema), next: z.string() });
