import { LOCALES } from '@acme/i18n';
import { TraitsSchema, type Traits } from '@acme/identity-contract/traits';

export const SCHEMA_ID = 'default';

/** The identity JSON schema served at `/schemas/default`, with Kratos's `ory.sh/kratos` extensions. */
export const identitySchema = {
  $id: 'https://schemas.ory.sh/presets/kratos/identity.email.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Person',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        userServiceID: { type: 'string', title: 'User service ID', maxLength: 256 },
        email: {
          type: 'string',
          format: 'email',
          title: 'E-Mail',
          maxLength: 320,
          'ory.sh/kratos': {
            credentials: { password: { identifier: true }, totp: { account_name: true } },
            verification: { via: 'email' },
            recovery: { via: 'email' },
          },
        },
        name: {
          type: 'object',
          additionalProperties: false,
          properties: {
            first: { type: 'string', title: 'First name', maxLength: 256 },
            last: { type: 'string', title: 'Last name', maxLength: 256 },
          },
        },
        onboarding: {
          type: 'object',
          additionalProperties: false,
          properties: {
            isGitUser: { type: 'boolean' },
            mfaSetupDeadline: { type: ['string', 'null'], format: 'date-time' },
            gitProviderConnected: { type: 'boolean' },
            tosAccepted: { type: 'boolean' },
          },
        },
        locale: { type: 'string', title: 'Language', enum: LOCALES },
      },
      required: ['email'],
    },
  },
} as const;

/** Kratos puts the base64url of the schema id in `schema_url`. */
export const schemaUrl = (publicUrl: string) =>
  `${publicUrl}/schemas/${Buffer.from(SCHEMA_ID).toString('base64url')}`;

export function validateTraits(
  traits: unknown,
): { ok: true; traits: Traits } | { ok: false; problems: string[] } {
  const r = TraitsSchema.safeParse(traits);
  if (r.success) return { ok: true, traits: r.data };
  return { ok: false, problems: r.error.issues.map((i) => `#/traits/${i.path.join('/')}: ${i.message}`) };
}
