import { LOCALES } from '@acme/i18n';
import { z } from 'zod';

/**
 * The identity traits of the schema `default` (email, user-service id, name, onboarding state), as
 * the identity service validates them and its callers read and write them. `email` is required; the
 * rest is optional so partial records can be created.
 */
export const TraitsSchema = z.strictObject({
  userServiceID: z.string().max(256).optional(),
  email: z.email().max(320),
  name: z
    .strictObject({ first: z.string().max(256).optional(), last: z.string().max(256).optional() })
    .optional(),
  onboarding: z
    .strictObject({
      isGitUser: z.boolean().optional(),
      mfaSetupDeadline: z.iso.datetime({ offset: true }).nullable().optional(),
      gitProviderConnected: z.boolean().optional(),
      tosAccepted: z.boolean().optional(),
    })
    .optional(),
  /** The person's language for screens and mails; absent means "follow the browser". */
  locale: z.enum(LOCALES).optional(),
});

export type Traits = z.infer<typeof TraitsSchema>;

/** Every trait filled in: what the user service writes when it creates an identity. */
export type CompleteTraits = Required<Omit<Traits, 'name' | 'onboarding' | 'locale'>> & {
  name: Required<NonNullable<Traits['name']>>;
  onboarding: Required<NonNullable<Traits['onboarding']>>;
};
