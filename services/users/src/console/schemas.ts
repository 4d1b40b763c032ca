// The console's wire shapes (`/console/*` on the public port) are the contract's: the app that calls
// and this service that answers import the same schemas.
export {
  apiClientParamsSchema,
  changeRoleSchema,
  consoleApiClientListSchema,
  consoleApiClientSchema,
  consoleCreateApiClientSchema,
  consoleCreatedApiClientSchema,
  eventListSchema,
  exportEventsQuerySchema,
  invitationParamsSchema,
  inviteSchema,
  listEventsQuerySchema,
  listMembersQuerySchema,
  meSchema,
  memberDetailSchema,
  memberListSchema,
  memberParamsSchema,
  memberSchema,
  orgParamsSchema,
  subscriptionSchema,
} from '@acme/users-contract/console';
