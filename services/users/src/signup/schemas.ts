import { z } from 'zod';
import { emailSchema } from '../http/schemas.ts';

const nameSchema = z.string().trim().min(1).max(100);

/** `PUT /admin/organisations/{id}/self-signup`: the operator opens or closes self sign-up. */
export const selfSignUpSettingSchema = z.object({ enabled: z.boolean() }).strict();

export const selfSignUpViewSchema = z.object({ organisationId: z.uuid(), enabled: z.boolean() });

/** `GET /admin/signup`: whether any organisation has self sign-up open (registration flows exist). */
export const signUpOpenSchema = z.object({ open: z.boolean() });

/**
 * `POST /admin/signup/members`, from the identity service's registration flow. The password goes on
 * to the identity admin API (which applies the policy and hashes it); it is never stored or logged here.
 */
export const signUpMemberSchema = z
  .object({
    email: emailSchema,
    firstName: nameSchema,
    lastName: nameSchema,
    password: z.string().min(1).max(1024),
  })
  .strict();

export const signUpMemberResultSchema = z.object({ userId: z.uuid(), identityId: z.string() });

/** `GET`/`PUT /console/organisations/{id}/self-signup`: the setting, its domains, what blocks it. */
export { consoleSelfSignUpSchema } from '@acme/users-contract/console';
