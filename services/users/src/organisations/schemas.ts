import { z } from 'zod';
import { domainSchema } from '../http/schemas.ts';

const SUBSCRIPTION_STATUSES = ['subscribed', 'not_subscribed'] as const;

const productSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _-]*$/, 'must be a product name such as Platform or MAGIC');

const unique = <T>(values: T[]) => [...new Set(values)];

const ssoConfigSchema = z.object({ provider: z.string().trim().min(1).max(100) }).strict();

export const createOrganisationSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    domains: z.array(domainSchema).min(1).max(50).transform(unique),
    products: z.array(productSchema).max(20).transform(unique),
    subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES).default('subscribed'),
    sso: ssoConfigSchema.nullable().default(null),
    m365: z.boolean().default(false),
    /** Microsoft 365 tenants whose people sign in to this organisation. */
    m365TenantIds: z
      .array(z.uuid().transform((id) => id.toLowerCase()))
      .max(20)
      .default([])
      .transform(unique),
  })
  .strict();

export type CreateOrganisationInput = z.output<typeof createOrganisationSchema>;

export const organisationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  domains: z.array(z.string()),
  products: z.array(z.string()),
  subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES),
  sso: ssoConfigSchema.nullable(),
  m365: z.boolean(),
  m365TenantIds: z.array(z.string()),
  createdAt: z.iso.datetime(),
});

export type Organisation = z.input<typeof organisationSchema>;

export const organisationListSchema = z.object({ organisations: z.array(organisationSchema) });

export const organisationIdParamsSchema = z.object({ id: z.string() });
