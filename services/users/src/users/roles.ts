import { PERMISSIONS, ROLES, type Permission, type Role } from '@acme/users-contract/console';

// The permissions and roles are on the wire (`/console/me`): the contract holds them.
export { PERMISSIONS, ROLES, type Permission, type Role };

/** A researcher: uses what their organisation is entitled to. */
const MEMBER: readonly Permission[] = [
  'ViewDataBundles',
  'ViewEntitledTeams',
  'ManageAccessTokens',
  'ViewEntitledWorkspaces',
  'UseResearchEnvironments',
  'ViewBasicStrategyDeploymentDetails',
  'ViewDataBrowser',
  'MagicChatWithAgents',
];

/** A lead inside an organisation: runs workspaces and deployments, sees reports and colleagues. */
const ADMIN: readonly Permission[] = [
  ...MEMBER,
  'Reporting',
  'ViewUsers',
  'ManageEntitledWorkspaces',
  'ManageStrategyDeployments',
  'ViewExtendedStrategyDeploymentDetails',
];

/** The customer's administrator: manages their own organisation, its people, security and billing. */
const ORG_ADMIN: readonly Permission[] = [
  ...ADMIN,
  'ManageOrganisationSettings',
  'ManageOrganisationUsers',
  'ManageOrganisationTeams',
  'ViewAllTeams',
  'ConfigureSSO',
  'ManageIPWhitelist',
  'MagicManageOrganisationBilling',
];

/** The provider's staff: every organisation, global settings and data entitlements. */
const SUPER_ADMIN: readonly Permission[] = [...PERMISSIONS];

/** Which role holds which permission (see docs/decisions/0005-roles-and-permissions.md). */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  member: MEMBER,
  admin: ADMIN,
  'org-admin': ORG_ADMIN,
  'super-admin': SUPER_ADMIN,
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function permissionsOf(role: Role): readonly Permission[] {
  return ROLE_PERMISSIONS[role];
}

export function hasPermission(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}
