/** Wire shapes of the console's SCIM API (`/console/organisations/{id}/scim/*`, issue 26). */

export {
  createdScimTokenSchema,
  createScimTokenSchema,
  scimSettingsInputSchema,
  scimSettingsSchema,
  scimTokenListSchema,
  scimTokenParamsSchema,
} from '@acme/users-contract/console-scim';
