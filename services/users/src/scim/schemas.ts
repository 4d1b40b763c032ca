/** Wire shapes of the console's SCIM API (`/console/organisations/{id}/scim/*`, issue 26). */

/** The most live SCIM tokens an organisation holds at once. */
export const MAX_LIVE_SCIM_TOKENS = 5;

export {
  createdScimTokenSchema,
  createScimTokenSchema,
  scimSettingsInputSchema,
  scimSettingsSchema,
  scimTokenListSchema,
  scimTokenParamsSchema,
} from '@acme/users-contract/console-scim';
