import { describe, expect, it } from 'vitest';
import { copy } from '../../copy.ts';
import type { Me } from './console-client.ts';
import type { Permission } from '@acme/users-contract/console';
import { selectConsoleView, type MeState } from './select-console-view.ts';

const me = (role: Me['role'], permissions: Permission[]): MeState => ({
  state: 'ready',
  me: { userId: 'u', email: 'e', organisationId: 'o', role, permissions, assignableRoles: [] },
});
const ORG_ADMIN = me('org-admin', ['ViewUsers', 'ManageOrganisationUsers', 'ManageOrganisationSettings']);
const ADMIN = me('admin', ['ViewUsers']);
const MEMBER = me('member', ['ViewDataBundles', 'ManageAccessTokens']);
const FULL_ORG_ADMIN = me('org-admin', [
  'ViewUsers',
  'ManageOrganisationUsers',
  'ManageOrganisationSettings',
  'ManageAccessTokens',
  'MagicManageOrganisationBilling',
  'ManageIPWhitelist',
]);

const SSO_ADMIN = me('org-admin', ['ViewUsers', 'ManageOrganisationUsers', 'ConfigureSSO']);

describe('selectConsoleView', () => {
  it.each<[string, string, string, MeState, unknown]>([
    ['another application', 'platform', '/admin/members', ORG_ADMIN, { type: 'denied' }],
    ['an unknown console path', 'admin', '/admin/nothing', ORG_ADMIN, { type: 'denied' }],
    ['while /console/me loads', 'admin', '/admin/members', { state: 'loading' }, { type: 'loading' }],
    [
      '/console/me refused (403)',
      'admin',
      '/admin/members',
      { state: 'error', status: 403, message: 'inactive' },
      { type: 'denied' },
    ],
    [
      '/console/me refused outside the trusted networks: the reason, not Access Denied',
      'admin',
      '/admin/members',
      { state: 'error', status: 403, message: 'outside', errorCode: 'NETWORK_NOT_TRUSTED' },
      { type: 'error', message: copy.errors.networkNotTrusted },
    ],
    [
      '/console/me failed otherwise',
      'admin',
      '/admin/members',
      { state: 'error', status: 502, message: 'down' },
      { type: 'error', message: 'down' },
    ],
    [
      'home, org-admin: the first section',
      'admin',
      '/admin',
      ORG_ADMIN,
      { type: 'redirect', to: '/admin/members' },
    ],
    ['home, member: nothing to open', 'admin', '/admin', MEMBER, { type: 'denied' }],
    ['members, member', 'admin', '/admin/members', MEMBER, { type: 'denied' }],
    ['invitations, member', 'admin', '/admin/invitations', MEMBER, { type: 'denied' }],
    ['events, member', 'admin', '/admin/events', MEMBER, { type: 'denied' }],
    ['a member page, member', 'admin', '/admin/member', MEMBER, { type: 'denied' }],
    [
      'invitations, admin (no ManageOrganisationUsers)',
      'admin',
      '/admin/invitations',
      ADMIN,
      { type: 'denied' },
    ],
    ['events, admin (no ManageOrganisationSettings)', 'admin', '/admin/events', ADMIN, { type: 'denied' }],
    [
      'API clients, member (ManageAccessTokens alone)',
      'admin',
      '/admin/api-clients',
      MEMBER,
      { type: 'denied' },
    ],
    [
      'API clients, org-admin without ManageAccessTokens',
      'admin',
      '/admin/api-clients',
      ORG_ADMIN,
      { type: 'denied' },
    ],
    ['subscription, member', 'admin', '/admin/subscription', MEMBER, { type: 'denied' }],
    ['trusted networks, member', 'admin', '/admin/networks', MEMBER, { type: 'denied' }],
    ['trusted networks, admin (no ManageIPWhitelist)', 'admin', '/admin/networks', ADMIN, { type: 'denied' }],
    ['single sign-on, member', 'admin', '/admin/sso', MEMBER, { type: 'denied' }],
    ['sign-up, member', 'admin', '/admin/signup', MEMBER, { type: 'denied' }],
    ['webhooks, member', 'admin', '/admin/webhooks', MEMBER, { type: 'denied' }],
    [
      'webhooks, admin (no ManageOrganisationSettings)',
      'admin',
      '/admin/webhooks',
      ADMIN,
      { type: 'denied' },
    ],
    [
      'webhooks, SSO admin without ManageOrganisationSettings',
      'admin',
      '/admin/webhooks',
      SSO_ADMIN,
      { type: 'denied' },
    ],
    ['webhooks, another application', 'platform', '/admin/webhooks', ORG_ADMIN, { type: 'denied' }],
    ['sign-up, admin (no ManageOrganisationSettings)', 'admin', '/admin/signup', ADMIN, { type: 'denied' }],
    [
      'sign-up, SSO admin without ManageOrganisationSettings',
      'admin',
      '/admin/signup',
      SSO_ADMIN,
      { type: 'denied' },
    ],
    ['single sign-on, admin (no ConfigureSSO)', 'admin', '/admin/sso', ADMIN, { type: 'denied' }],
    ['provisioning, admin (no ManageOrganisationUsers)', 'admin', '/admin/scim', ADMIN, { type: 'denied' }],
    ['single sign-on, another application', 'platform', '/admin/sso', SSO_ADMIN, { type: 'denied' }],
    [
      'subscription, admin (no MagicManageOrganisationBilling)',
      'admin',
      '/admin/subscription',
      ADMIN,
      { type: 'denied' },
    ],
  ])('%s', (_name, application, path, meState, expected) => {
    expect(selectConsoleView({ application, path, me: meState })).toEqual(expected);
  });

  it.each<[string, MeState, string, string[]]>([
    ['admin reads members; the nav shows members only', ADMIN, '/admin/members', ['members']],
    [
      'org-admin: every section in the nav',
      ORG_ADMIN,
      '/admin/events',
      ['members', 'invitations', 'scim', 'signup', 'events', 'webhooks'],
    ],
    [
      'org-admin with ManageOrganisationSettings: sign-up',
      ORG_ADMIN,
      '/admin/signup',
      ['members', 'invitations', 'scim', 'signup', 'events', 'webhooks'],
    ],
    [
      'org-admin with tokens and billing: API clients and subscription too',
      FULL_ORG_ADMIN,
      '/admin/subscription',
      [
        'members',
        'invitations',
        'scim',
        'signup',
        'apiClients',
        'networks',
        'events',
        'webhooks',
        'subscription',
      ],
    ],
    [
      'org-admin with ManageIPWhitelist: trusted networks',
      FULL_ORG_ADMIN,
      '/admin/networks',
      [
        'members',
        'invitations',
        'scim',
        'signup',
        'apiClients',
        'networks',
        'events',
        'webhooks',
        'subscription',
      ],
    ],
    [
      'org-admin with ManageOrganisationSettings: webhooks, after the security events',
      ORG_ADMIN,
      '/admin/webhooks',
      ['members', 'invitations', 'scim', 'signup', 'events', 'webhooks'],
    ],
    [
      'org-admin (ManageOrganisationUsers): provisioning, after invitations',
      ORG_ADMIN,
      '/admin/scim',
      ['members', 'invitations', 'scim', 'signup', 'events', 'webhooks'],
    ],
    [
      'org-admin with ConfigureSSO: single sign-on after invitations',
      SSO_ADMIN,
      '/admin/sso',
      ['members', 'invitations', 'sso', 'scim'],
    ],
  ])('%s', (_name, meState, path, nav) => {
    const view = selectConsoleView({ application: 'admin', path, me: meState });
    expect(view).toMatchObject({ type: 'section', nav });
  });
});
