import { z } from 'zod';

const TERMS_DOCUMENTS = ['terms', 'privacy'] as const;

export const acceptTermsBodySchema = z
  .object({
    documents: z
      .array(
        z.object({ document: z.enum(TERMS_DOCUMENTS), version: z.string().trim().min(1).max(64) }).strict(),
      )
      .min(1)
      .max(2)
      .refine((docs) => new Set(docs.map((d) => d.document)).size === docs.length, 'each document once'),
  })
  .strict();

export const acceptTermsAnswerSchema = z.object({ tosAccepted: z.boolean() });

const documentSchema = z.object({ version: z.string(), url: z.string() });
export const currentTermsSchema = z.object({ terms: documentSchema, privacy: documentSchema });

export const exportQuerySchema = z
  .object({
    organisationId: z.uuid().optional(),
    format: z.enum(['csv', 'json']).default('json'),
  })
  .strict();

const acceptanceSchema = z.object({
  id: z.uuid(),
  userId: z.uuid(),
  email: z.string(),
  organisationId: z.uuid(),
  document: z.enum(TERMS_DOCUMENTS),
  version: z.string(),
  acceptedAt: z.iso.datetime(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  source: z.enum(['user', 'operator']),
});

export type Acceptance = z.input<typeof acceptanceSchema>;

export const acceptanceListSchema = z.object({ acceptances: z.array(acceptanceSchema) });
