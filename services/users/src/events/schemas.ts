import { z } from 'zod';

/** An event of the organisation's log as the console and the events feed return it. */
export const securityEventSchema = z.object({
  id: z.uuid(),
  organisationId: z.uuid(),
  occurredAt: z.iso.datetime(),
  type: z.string(),
  actorKind: z.string(),
  actorId: z.uuid().nullable(),
  subjectId: z.uuid().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  source: z.enum(['users', 'identity']),
  details: z.record(z.string(), z.string()),
});
