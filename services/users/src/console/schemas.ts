import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';
import { PERMISSIONS, ROLES } from '../users/roles.ts';
import { scopeGroupSchema } from '../users/schemas.ts';
import { SECURITY_EVENT_TYPES } from '@acme/users-contract/console';
import { securityEventSchema } from '../events/schemas.ts';

/** Wire shapes of the organisation console API (`/console/*` on the public port). */

const MAX_PAGE_SIZE = 100;

const nameSchema = z.string().trim().min(1).max(100);

export const memberParamsSchema = z.object({ organisationId: z.uuid(), userId: z.uuid() }).strict();
export const invitationParamsSchema = z.object({ organisationId: z.uuid(), invitationId: z.uuid() }).strict();

export const listMembersQuerySchema = z
  .object({
    q: z.string().trim().max(200).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(25),
  })
  .strict();

export const changeRoleSchema = z.object({ role: z.enum(ROLES) }).strict();

export const inviteSchema = z
  .object({ email: emailSchema, firstName: nameSchema, lastName: nameSchema, role: z.enum(ROLES) })
  .strict();

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

export const exportEventsQuerySchema = listEventsQuerySchema.omit({ cursor: true, limit: true }).strict();

export const memberSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: z.enum(ROLES),
  status: z.enum(['active', 'deactivated']),
  createdAt: z.iso.datetime(),
  deactivatedAt: z.iso.datetime().nullable(),
  managedBy: z.enum(['directory']).nullable(),
});

export const memberListSchema = z.object({
  members: z.array(memberSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

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

export const eventListSchema = z.object({
  events: z.array(securityEventSchema),
  nextCursor: z.string().nullable(),
});

export const meSchema = z.object({
  userId: z.uuid(),
  email: z.string(),
  organisationId: z.uuid(),
  role: z.enum(ROLES),
  permissions: z.array(z.enum(PERMISSIONS)),
  assignableRoles: z.array(z.enum(ROLES)),
});

export const apiClientParamsSchema = z
  .object({ organisationId: z.uuid(), clientId: z.string().min(1).max(100) })
  .strict();

export const consoleCreateApiClientSchema = z
  .object({ name: nameSchema, scopeGroups: z.array(scopeGroupSchema).min(1).max(50) })
  .strict();

export const consoleApiClientSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopeGroups: z.array(z.string()),
  createdAt: z.iso.datetime(),
  createdBy: z.string().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});

export const consoleApiClientListSchema = z.object({ apiClients: z.array(consoleApiClientSchema) });

/** The creation answer: the only time the secret is shown. */
export const consoleCreatedApiClientSchema = consoleApiClientSchema.extend({ clientSecret: z.string() });

export const subscriptionSchema = z.object({
  status: z.string(),
  m365: z.boolean(),
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
