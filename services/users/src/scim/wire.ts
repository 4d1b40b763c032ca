import { z } from 'zod';

/**
 * The SCIM 2.0 server's answers (RFC 7643/7644) as the OpenAPI document describes them. Requests are
 * read by `readUser`, `readGroup` and the PATCH reader with their own schemas; SCIM's own error body
 * answers every failure.
 */

const meta = z.object({
  resourceType: z.string(),
  created: z.iso.datetime(),
  lastModified: z.iso.datetime(),
  location: z.string(),
});

const reference = z.object({ value: z.string(), display: z.string(), $ref: z.string() });

export const scimUserSchema = z.object({
  schemas: z.array(z.string()),
  id: z.uuid(),
  externalId: z.string().optional(),
  userName: z.string(),
  name: z.object({ formatted: z.string(), givenName: z.string(), familyName: z.string() }),
  displayName: z.string(),
  active: z.boolean(),
  emails: z.array(z.object({ value: z.string(), type: z.string(), primary: z.boolean() })),
  groups: z.array(reference),
  meta,
});

export const scimGroupSchema = z.object({
  schemas: z.array(z.string()),
  id: z.uuid(),
  displayName: z.string(),
  externalId: z.string().optional(),
  /** Left out when the request excludes `members`. */
  members: z.array(reference).optional(),
  meta,
});

export function scimListSchema<T extends z.ZodType>(resource: T) {
  return z.object({
    schemas: z.array(z.string()),
    totalResults: z.number().int(),
    startIndex: z.number().int(),
    itemsPerPage: z.number().int(),
    Resources: z.array(resource),
  });
}

/** Discovery documents (ServiceProviderConfig, ResourceType, Schema): RFC 7643's, kept open. */
export const scimDiscoverySchema = z.looseObject({ schemas: z.array(z.string()) });

export const scimErrorSchema = z.object({
  schemas: z.array(z.string()),
  status: z.string(),
  scimType: z.string().optional(),
  detail: z.string(),
});

export const scimIdParamsSchema = z.object({ id: z.string() });

export const scimListQuerySchema = z
  .object({
    filter: z.string().max(1000).optional(),
    startIndex: z.coerce.number().int().optional(),
    count: z.coerce.number().int().optional(),
    attributes: z.string().max(1000).optional(),
    excludedAttributes: z.string().max(1000).optional(),
  })
  .passthrough();
