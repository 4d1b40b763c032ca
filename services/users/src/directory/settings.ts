import type { Kysely, Transaction } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { ScimGroupMapping, UsersDb } from '../db-types.ts';
import { recordEvent, type EventOrigin } from '../events/events.ts';
import { AppError } from '../http/errors.ts';
import { ROLES, type Role } from '../users/roles.ts';

type Db = Kysely<UsersDb> | Transaction<UsersDb>;

/**
 * The organisation's group mapping (issue 26): each directory group (by display name) grants a
 * role (at most org-admin) and scope groups. A provisioned person's role and scope groups are
 * recomputed from their groups at every membership change and every change of the mapping, so the
 * next token's `ext` follows the directory. Console role edits are refused for them meanwhile.
 */

export async function readGroupMappings(db: Db, organisationId: string): Promise<ScimGroupMapping[]> {
  const row = await db
    .selectFrom('scim_settings')
    .select('group_mappings')
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return row?.group_mappings ?? [];
}

/** The scope groups the organisation knows: those its people and its live API clients hold. */
export async function organisationScopeGroups(db: Db, organisationId: string): Promise<Set<string>> {
  const [users, clients] = await Promise.all([
    db.selectFrom('users').select('scope_groups').where('organisation_id', '=', organisationId).execute(),
    db
      .selectFrom('api_clients')
      .select('scope_groups')
      .where('organisation_id', '=', organisationId)
      .where('revoked_at', 'is', null)
      .execute(),
  ]);
  return new Set([...users, ...clients].flatMap((r) => r.scope_groups));
}

export async function saveGroupMappings(
  ctx: UsersContext,
  organisationId: string,
  mappings: ScimGroupMapping[],
  origin: EventOrigin,
): Promise<void> {
  const known = await organisationScopeGroups(ctx.db, organisationId);
  for (const [index, mapping] of mappings.entries()) {
    const unknown = mapping.scopeGroups.filter((g) => !known.has(g));
    if (unknown.length > 0) {
      throw new AppError(
        'INVALID_REQUEST',
        `The request is invalid: groupMappings.${index}.scopeGroups: not a scope group of this organisation: ${unknown.join(', ')}`,
      );
    }
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('scim_settings')
      .values({ organisation_id: organisationId, group_mappings: JSON.stringify(mappings), updated_at: now })
      .onConflict((oc) =>
        oc
          .column('organisation_id')
          .doUpdateSet({ group_mappings: JSON.stringify(mappings), updated_at: now }),
      )
      .execute();
    await recordEvent(
      trx,
      origin,
      {
        organisationId,
        type: 'scim.settings_changed',
        subjectId: null,
        details: { groupMappings: String(mappings.length) },
      },
      now,
    );
    await applyGroupMappings(trx, organisationId, origin, now);
  });
}

const rank = (role: Role): number => ROLES.indexOf(role);

/** The role and scope groups a person in `groups` gets, or null where the mapping decides nothing. */
export function decideDirectoryGrants(
  mappings: readonly ScimGroupMapping[],
  groups: readonly string[],
): { role: Role | null; scopeGroups: string[] | null } {
  if (mappings.length === 0) return { role: null, scopeGroups: null };
  const held = new Set(groups);
  const matching = mappings.filter((m) => held.has(m.group));
  let role: Role | null = null;
  if (mappings.some((m) => m.role !== null)) {
    role = 'member';
    for (const m of matching) {
      const granted: Role | null = m.role === 'user' ? 'member' : m.role;
      if (granted !== null && rank(granted) > rank(role)) role = granted;
    }
  }
  return { role, scopeGroups: [...new Set(matching.flatMap((m) => m.scopeGroups))].sort() };
}

/**
 * Recomputes the role and scope groups of the organisation's provisioned people (all of them, or
 * those in `userIds`) from their groups. Never touches anyone the directory did not provision, nor a
 * provider-staff role.
 */
export async function applyGroupMappings(
  trx: Transaction<UsersDb>,
  organisationId: string,
  origin: EventOrigin,
  now: Date,
  userIds?: readonly string[],
): Promise<void> {
  if (userIds !== undefined && userIds.length === 0) return;
  const mappings = await readGroupMappings(trx, organisationId);
  let query = trx
    .selectFrom('scim_users')
    .innerJoin('users', 'users.id', 'scim_users.user_id')
    .select(['users.id', 'users.role', 'users.scope_groups'])
    .where('scim_users.organisation_id', '=', organisationId)
    .where('scim_users.deleted_at', 'is', null)
    .where('users.role', '!=', 'super-admin');
  if (userIds !== undefined) query = query.where('users.id', 'in', userIds);
  const people = await query.execute();
  if (people.length === 0) return;
  const memberships = await trx
    .selectFrom('scim_group_members')
    .innerJoin('scim_groups', 'scim_groups.id', 'scim_group_members.group_id')
    .select(['scim_group_members.user_id', 'scim_groups.display_name'])
    .where(
      'scim_group_members.user_id',
      'in',
      people.map((p) => p.id),
    )
    .execute();
  for (const person of people) {
    const groups = memberships.filter((m) => m.user_id === person.id).map((m) => m.display_name);
    const { role, scopeGroups } = decideDirectoryGrants(mappings, groups);
    const change: { role?: string; scope_groups?: string } = {};
    if (role !== null && role !== person.role) change.role = role;
    if (
      scopeGroups !== null &&
      JSON.stringify(scopeGroups) !== JSON.stringify([...person.scope_groups].sort())
    ) {
      change.scope_groups = JSON.stringify(scopeGroups);
    }
    if (Object.keys(change).length > 0) {
      await trx.updateTable('users').set(change).where('id', '=', person.id).execute();
    }
    if (change.role !== undefined) {
      await recordEvent(
        trx,
        origin,
        {
          organisationId,
          type: 'member.role_changed',
          subjectId: person.id,
          details: { from: person.role, to: change.role, source: 'directory' },
        },
        now,
      );
    }
  }
}
