import { ROLES, type Me, type Member, type Role } from './console-client.ts';

// What the signed-in administrator may do to one member, decided from `/console/me` and the member.
// The server checks the same rules; this only keeps the page from offering what it would refuse.

export interface MemberActions {
  roleOptions: Role[];
  canChangeRole: boolean;
  canDeactivate: boolean;
  canReactivate: boolean;
  canEndSessions: boolean;
  canUnlock: boolean;
  /** Offered only when the member has a second factor. */
  canResetTwoFactor: boolean;
  /** Why the page offers less: the member is the caller, or ranks above what the caller manages. */
  note: 'self' | 'protected' | null;
  /** The organisation's directory sets the role (SCIM group mapping): shown, never edited here. */
  roleManagedByDirectory: boolean;
}

const NONE: MemberActions = {
  roleOptions: [],
  canChangeRole: false,
  canDeactivate: false,
  canReactivate: false,
  canEndSessions: false,
  canUnlock: false,
  canResetTwoFactor: false,
  note: null,
  roleManagedByDirectory: false,
};

const rank = (role: Role) => ROLES.indexOf(role);

export function decideMemberActions(me: Me, member: Member & { twoFactor?: boolean | null }): MemberActions {
  const roleManagedByDirectory = member.managedBy === 'directory';
  if (!me.permissions.includes('ManageOrganisationUsers')) return { ...NONE, roleManagedByDirectory };
  const highest = me.assignableRoles.reduce((top, r) => Math.max(top, rank(r)), -1);
  if (rank(member.role) > highest) return { ...NONE, note: 'protected', roleManagedByDirectory };
  const active = member.status === 'active';
  if (member.id === me.userId) {
    return { ...NONE, canEndSessions: true, note: 'self', roleManagedByDirectory };
  }
  return {
    roleOptions: roleManagedByDirectory ? [] : [...me.assignableRoles],
    canChangeRole: active && !roleManagedByDirectory,
    canDeactivate: active,
    canReactivate: !active,
    canEndSessions: active,
    canUnlock: active,
    canResetTwoFactor: active && member.twoFactor === true,
    note: null,
    roleManagedByDirectory,
  };
}
