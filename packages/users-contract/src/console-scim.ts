// Wire types of the console's SCIM section (`/console/organisations/{id}/scim/*`), shared by the user
// service that answers and the admin screen that calls it.

import { z } from 'zod';
import { scopeGroupSchema } from './console.ts';

/** The most group mappings an organisation's SCIM settings hold. */
const MAX_GROUP_MAPPINGS = 100;
/** The most scope groups one group mapping grants. */
const MAX_MAPPING_SCOPE_GROUPS = 50;

export const scimTokenParamsSchema = z.object({ organisationId: z.uuid(), tokenId: z.uuid() }).strict();

export const createScimTokenSchema = z.object({ name: z.string().trim().min(1).max(100) }).strict();

export const scimTokenListSchema = z.object({
  tokens: z.array(
    z.object({
      id: z.uuid(),
      name: z.string(),
      createdAt: z.iso.datetime(),
      lastUsedAt: z.iso.datetime().nullable(),
      createdBy: z.string(),
    }),
  ),
});

export const createdScimTokenSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  createdAt: z.iso.datetime(),
  token: z.string(),
});

/** The roles a directory group can grant (`user` is the member role); `null` maps to scope groups only. */
export const SCIM_ROLES = ['user', 'org-admin'] as const;
export type ScimRole = (typeof SCIM_ROLES)[number];

const groupMappingSchema = z
  .object({
    group: z.string().trim().min(1).max(256),
    role: z.enum(SCIM_ROLES).nullable(),
    scopeGroups: z
      .array(scopeGroupSchema)
      .max(MAX_MAPPING_SCOPE_GROUPS)
      .transform((groups) => [...new Set(groups)]),
  })
  .strict();

export const scimSettingsInputSchema = z
  .object({
    groupMappings: z
      .array(groupMappingSchema)
      .max(MAX_GROUP_MAPPINGS)
      .superRefine((mappings, issue) => {
        const seen = new Set<string>();
        mappings.forEach((m, index) => {
          if (seen.has(m.group)) {
            issue.addIssue({ code: 'custom', path: [index, 'group'], message: 'names a group twice' });
          }
          seen.add(m.group);
        });
      }),
  })
  .strict();

export const scimSettingsSchema = z.object({
  enabled: z.boolean(),
  baseUrl: z.string(),
  groupMappings: z.array(
    z.object({ group: z.string(), role: z.enum(SCIM_ROLES).nullable(), scopeGroups: z.array(z.string()) }),
  ),
  /** The organisation's known scope groups (its people's and live API clients'), sorted. */
  scopeGroups: z.array(z.string()),
});

export type ScimToken = z.infer<typeof scimTokenListSchema>['tokens'][number];
export type ScimSettings = z.infer<typeof scimSettingsSchema>;
export type ScimGroupMapping = ScimSettings['groupMappings'][number];
