import { z } from 'zod';
import { createUserSchema } from '../users/schemas.ts';

import { INVITATION_STATES, invitationListSchema, invitationSchema } from '@acme/users-contract/console';

export type InvitationState = (typeof INVITATION_STATES)[number];

/** As `POST /admin/users`, without a password: the invited person sets it. */
export const createInvitationSchema = createUserSchema.omit({ password: true }).strict();

export type CreateInvitationInput = z.output<typeof createInvitationSchema>;

export { invitationListSchema, invitationSchema };

export type Invitation = z.input<typeof invitationSchema>;

export const listInvitationsQuerySchema = z.object({ organisationId: z.uuid().optional() }).strict();

export const invitationIdParamsSchema = z.object({ id: z.string() });

export const statusQuerySchema = z.object({ flow: z.string().trim().min(1).max(200) });

export const statusAnswerSchema = z.object({ state: z.enum(INVITATION_STATES) });
