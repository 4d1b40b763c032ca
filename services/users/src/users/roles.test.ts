import { describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLES, ROLE_PERMISSIONS, hasPermission, isRole, permissionsOf } from './roles.ts';

describe('roles and permissions', () => {
  it('lists exactly the 27 permissions of the product, without duplicates', () => {
    expect(PERMISSIONS).toHaveLength(27);
    expect(new Set(PERMISSIONS).size).toBe(27);
  });

  it('gives every role a duplicate-free list of known permissions', () => {
    for (const role of ROLES) {
      const held = permissionsOf(role);
      expect(new Set(held).size).toBe(held.length);
      for (const permission of held) expect(PERMISSIONS).toContain(permission);
    }
  });

  it('orders roles so that each holds every permission of the role before it', () => {
    for (let i = 1; i < ROLES.length; i++) {
      const lower = ROLE_PERMISSIONS[ROLES[i - 1]!];
      const higher = ROLE_PERMISSIONS[ROLES[i]!];
      for (const permission of lower) expect(higher).toContain(permission);
      expect(higher.length).toBeGreaterThan(lower.length);
    }
  });

  it('grants every permission to super-admin and the provider-only ones to no one else', () => {
    expect([...ROLE_PERMISSIONS['super-admin']].sort()).toEqual([...PERMISSIONS].sort());
    const providerOnly = [
      'ViewOrganisations',
      'ManageOrganisations',
      'ManageOrganisationDataAccess',
      'ManageDataBundles',
      'ViewGlobalSettings',
      'ManageGlobalSettings',
      'MagicSuperAdmin',
    ] as const;
    for (const permission of providerOnly) {
      for (const role of ['member', 'admin', 'org-admin'] as const)
        expect(hasPermission(role, permission)).toBe(false);
    }
  });

  it('matches the mapping recorded in decision 0005', () => {
    expect(ROLE_PERMISSIONS).toMatchInlineSnapshot(`
      {
        "admin": [
          "ViewDataBundles",
          "ViewEntitledTeams",
          "ManageAccessTokens",
          "ViewEntitledWorkspaces",
          "UseResearchEnvironments",
          "ViewBasicStrategyDeploymentDetails",
          "ViewDataBrowser",
          "MagicChatWithAgents",
          "Reporting",
          "ViewUsers",
          "ManageEntitledWorkspaces",
          "ManageStrategyDeployments",
          "ViewExtendedStrategyDeploymentDetails",
        ],
        "member": [
          "ViewDataBundles",
          "ViewEntitledTeams",
          "ManageAccessTokens",
          "ViewEntitledWorkspaces",
          "UseResearchEnvironments",
          "ViewBasicStrategyDeploymentDetails",
          "ViewDataBrowser",
          "MagicChatWithAgents",
        ],
        "org-admin": [
          "ViewDataBundles",
          "ViewEntitledTeams",
          "ManageAccessTokens",
          "ViewEntitledWorkspaces",
          "UseResearchEnvironments",
          "ViewBasicStrategyDeploymentDetails",
          "ViewDataBrowser",
          "MagicChatWithAgents",
          "Reporting",
          "ViewUsers",
          "ManageEntitledWorkspaces",
          "ManageStrategyDeployments",
          "ViewExtendedStrategyDeploymentDetails",
          "ManageOrganisationSettings",
          "ManageOrganisationUsers",
          "ManageOrganisationTeams",
          "ViewAllTeams",
          "ConfigureSSO",
          "ManageIPWhitelist",
          "MagicManageOrganisationBilling",
        ],
        "super-admin": [
          "ViewDataBundles",
          "ManageDataBundles",
          "Reporting",
          "ViewOrganisations",
          "ManageOrganisations",
          "ManageOrganisationDataAccess",
          "ManageOrganisationSettings",
          "ManageOrganisationUsers",
          "ManageOrganisationTeams",
          "ViewGlobalSettings",
          "ManageGlobalSettings",
          "ConfigureSSO",
          "ManageIPWhitelist",
          "ViewUsers",
          "ViewEntitledTeams",
          "ViewAllTeams",
          "ManageAccessTokens",
          "ViewEntitledWorkspaces",
          "ManageEntitledWorkspaces",
          "UseResearchEnvironments",
          "ManageStrategyDeployments",
          "ViewBasicStrategyDeploymentDetails",
          "ViewExtendedStrategyDeploymentDetails",
          "ViewDataBrowser",
          "MagicManageOrganisationBilling",
          "MagicChatWithAgents",
          "MagicSuperAdmin",
        ],
      }
    `);
  });

  it('recognises role names', () => {
    expect(isRole('org-admin')).toBe(true);
    expect(isRole('owner')).toBe(false);
  });
});
