import { z } from 'zod';
import { createUserSchema } from '../users/schemas.ts';
import { ROLES } from '../users/roles.ts';

const INVITATION_STATES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];

/** As `POST /admin/users`, without a password: the invited person sets it. */
export const createInvitationSchema = createUserSchema.omit({ password: true }).strict();

export type CreateInvitationInput = z.output<typeof createInvitationSchema>;

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

export type Invitation = z.input<typeof invitationSchema>;

export const invitationListSchema = z.object({ invitations: z.array(invitationSchema) });

export const listInvitationsQuerySchema = z.object({ organisationId: z.uuid().optional() }).strict();

export const invitationIdParamsSchema = z.object({ id: z.string() });

export const statusQuerySchema = z.object({ flow: z.string().trim().min(1).max(200) });

export const statusAnswerSchema = z.object({ state: z.enum(INVITATION_STATES) });
