import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';
import { PERMISSIONS, ROLES } from './roles.ts';

const nameSchema = z.string().trim().min(1).max(100);
export { scopeGroupSchema } from '@acme/users-contract/console';
import { scopeGroupSchema } from '@acme/users-contract/console';

export const createUserSchema = z
  .object({
    organisationId: z.uuid(),
    email: emailSchema,
    firstName: nameSchema,
    lastName: nameSchema,
    role: z.enum(ROLES),
    // Length only: the identity service applies the password policy and answers IDENTITY_REJECTED.
    password: z.string().min(1).max(1024).optional(),
    /** A source-code-host user links that account during onboarding (the onboarding stepper's source-code-host step). */
    isGitUser: z.boolean().default(false),
    scopeGroups: z
      .array(scopeGroupSchema)
      .max(50)
      .default([])
      .transform((groups) => [...new Set(groups)]),
  })
  .strict();

export type CreateUserInput = z.output<typeof createUserSchema>;

export const userSchema = z.object({
  id: z.uuid(),
  organisationId: z.uuid(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: z.enum(ROLES),
  permissions: z.array(z.enum(PERMISSIONS)),
  scopeGroups: z.array(z.string()),
  identityId: z.string().nullable(),
  createdAt: z.iso.datetime(),
});

export type User = z.input<typeof userSchema>;

export const userListSchema = z.object({ users: z.array(userSchema) });

export const listUsersQuerySchema = z.object({ organisationId: z.uuid().optional() }).strict();

export const userIdParamsSchema = z.object({ id: z.string() });

/** `PATCH /admin/users/:id`: what an operator may change; it shows in the next refreshed token. */
export const updateUserSchema = z
  .object({
    role: z.enum(ROLES).optional(),
    scopeGroups: z
      .array(scopeGroupSchema)
      .max(50)
      .transform((groups) => [...new Set(groups)])
      .optional(),
  })
  .strict()
  .refine((v) => v.role !== undefined || v.scopeGroups !== undefined, 'nothing to change');
