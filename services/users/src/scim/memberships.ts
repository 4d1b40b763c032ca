import type { Kysely } from 'kysely';
import type { UsersDb } from '../db-types.ts';

/** A person's place in a group, with what each end shows of the other. */
export interface Membership {
  groupId: string;
  /** The group's `displayName`, as a person's `groups` show it. */
  groupName: string;
  userId: string;
  /** The person's email, as a group's `members` show them. */
  email: string;
}

/**
 * The memberships of the groups (`of: 'group_id'`) or of the people (`of: 'user_id'`) with these ids:
 * a group's members in the order of their email, a person's groups in the order of their name.
 */
export async function membershipsOf(
  db: Kysely<UsersDb>,
  of: 'group_id' | 'user_id',
  ids: string[],
): Promise<Membership[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('scim_group_members')
    .innerJoin('users', 'users.id', 'scim_group_members.user_id')
    .innerJoin('scim_groups', 'scim_groups.id', 'scim_group_members.group_id')
    .select([
      'scim_group_members.group_id as groupId',
      'scim_groups.display_name as groupName',
      'scim_group_members.user_id as userId',
      'users.email',
    ])
    .where(`scim_group_members.${of}`, 'in', ids)
    .orderBy(of === 'group_id' ? 'users.email' : 'scim_groups.display_name')
    .execute();
}
