import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';
import { scopeGroupSchema } from '../users/schemas.ts';

export const createApiClientSchema = z
  .object({
    organisationId: z.uuid(),
    name: z.string().trim().min(1).max(200),
    scopeGroups: z
      .array(scopeGroupSchema)
      .min(1)
      .max(50)
      .transform((groups) => [...new Set(groups)]),
    /** The user acting (must belong to the organisation and hold ManageAccessTokens). */
    actorEmail: emailSchema.optional(),
  })
  .strict();

export type CreateApiClientInput = z.output<typeof createApiClientSchema>;

export const revokeApiClientSchema = z.object({ actorEmail: emailSchema.optional() }).strict();

export const apiClientSchema = z.object({
  id: z.string(),
  organisationId: z.uuid(),
  name: z.string(),
  scopeGroups: z.array(z.string()),
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().nullable(),
});

export type ApiClient = z.input<typeof apiClientSchema>;

/** The creation answer: the only time the secret is shown. */
export const createdApiClientSchema = apiClientSchema.extend({ clientSecret: z.string() });

export const apiClientListSchema = z.object({ apiClients: z.array(apiClientSchema) });

export const listApiClientsQuerySchema = z.object({ organisationId: z.uuid() }).strict();

export const apiClientIdParamsSchema = z.object({ id: z.string().min(1).max(100) });
