import { describe, expect, it } from 'vitest';
import type { Me, Member } from './console-client.ts';
import { decideMemberActions } from './decide-member-actions.ts';

const orgAdmin: Me = {
  userId: 'ada',
  email: 'ada@acme.test',
  organisationId: 'o',
  role: 'org-admin',
  permissions: ['ViewUsers', 'ManageOrganisationUsers'],
  assignableRoles: ['member', 'admin', 'org-admin'],
};
const admin: Me = {
  ...orgAdmin,
  userId: 'lead',
  role: 'admin',
  permissions: ['ViewUsers'],
  assignableRoles: ['member', 'admin'],
};
const member = (over: Partial<Member> = {}): Member => ({
  id: 'grace',
  email: 'grace@acme.test',
  firstName: 'Grace',
  lastName: 'Hopper',
  role: 'member',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  deactivatedAt: null,
  managedBy: null,
  ...over,
});

describe('decideMemberActions', () => {
  it.each<[string, Me, Member & { twoFactor?: boolean }, Partial<ReturnType<typeof decideMemberActions>>]>([
    [
      'org-admin, active member: everything, roles up to org-admin',
      orgAdmin,
      member(),
      {
        canChangeRole: true,
        canDeactivate: true,
        canReactivate: false,
        roleOptions: ['member', 'admin', 'org-admin'],
        note: null,
      },
    ],
    [
      'org-admin, deactivated member: reactivate only',
      orgAdmin,
      member({ status: 'deactivated' }),
      { canReactivate: true, canDeactivate: false, canChangeRole: false },
    ],
    [
      'org-admin, themselves: sessions only',
      orgAdmin,
      member({ id: 'ada', role: 'org-admin' }),
      { canChangeRole: false, canDeactivate: false, canEndSessions: true, note: 'self' },
    ],
    [
      'org-admin, provider staff: nothing',
      orgAdmin,
      member({ role: 'super-admin' }),
      { canChangeRole: false, canEndSessions: false, note: 'protected' },
    ],
    [
      'org-admin, member with 2FA: reset offered',
      orgAdmin,
      { ...member(), twoFactor: true },
      { canResetTwoFactor: true },
    ],
    [
      'org-admin, member without 2FA: no reset',
      orgAdmin,
      { ...member(), twoFactor: false },
      { canResetTwoFactor: false },
    ],
    [
      'org-admin, role managed by the directory: no role edit, the rest stays',
      orgAdmin,
      member({ managedBy: 'directory' }),
      {
        canChangeRole: false,
        roleOptions: [],
        canDeactivate: true,
        canEndSessions: true,
        roleManagedByDirectory: true,
      },
    ],
    [
      "org-admin, managedBy null: the role is the console's",
      orgAdmin,
      member({ managedBy: null }),
      { canChangeRole: true, roleManagedByDirectory: false },
    ],
    [
      'admin (read only), directory-managed member: the page still says who manages the role',
      admin,
      member({ managedBy: 'directory' }),
      { canChangeRole: false, roleManagedByDirectory: true },
    ],
    [
      'admin (read only): nothing',
      admin,
      member(),
      { canChangeRole: false, canDeactivate: false, canUnlock: false, note: null },
    ],
  ])('%s', (_name, me, target, expected) => {
    expect(decideMemberActions(me, target)).toMatchObject(expected);
  });
});
