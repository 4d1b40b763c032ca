import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { SCHEMA } from './discovery.ts';
import { invalidValue, ScimError, scimNotFound } from './errors.ts';
import type { Condition } from './filter.ts';
import { applyPatch, parsePatch } from './patch.ts';
import { applyGroupMappings } from '../directory/settings.ts';
import { listResponse, type ListPage, type ScimScope } from './scope.ts';
import { membershipsOf, type Membership } from './memberships.ts';

/**
 * SCIM Groups (RFC 7643 §4.2): the directory's groups of the token's organisation and who is in
 * them. Members are people of the same organisation only. Every change of membership or name
 * recomputes the role and scope groups of the people it touches (settings.ts), so the next token's
 * `ext` follows.
 */

type Db = Kysely<UsersDb>;

interface GroupRow {
  id: string;
  display_name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const GROUP_COLUMNS = ['id', 'display_name', 'external_id', 'created_at', 'updated_at'] as const;

function toScimGroup(scope: ScimScope, row: GroupRow, members: Membership[] | null) {
  return {
    schemas: [SCHEMA.group],
    id: row.id,
    displayName: row.display_name,
    ...(row.external_id === null ? {} : { externalId: row.external_id }),
    ...(members === null
      ? {}
      : {
          members: members
            .filter((m) => m.groupId === row.id)
            .map((m) => ({ value: m.userId, display: m.email, $ref: `${scope.baseUrl}/Users/${m.userId}` })),
        }),
    meta: {
      resourceType: 'Group',
      created: new Date(row.created_at).toISOString(),
      lastModified: new Date(row.updated_at).toISOString(),
      location: `${scope.baseUrl}/Groups/${row.id}`,
    },
  };
}

export type ScimGroup = ReturnType<typeof toScimGroup>;

async function findRow(db: Db, scope: ScimScope, id: string): Promise<GroupRow> {
  if (!uuidSchema.safeParse(id).success) throw scimNotFound('Group');
  const row = await db
    .selectFrom('scim_groups')
    .select(GROUP_COLUMNS)
    .where('organisation_id', '=', scope.organisationId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw scimNotFound('Group');
  return row;
}

export async function getGroup(ctx: UsersContext, scope: ScimScope, id: string, withMembers = true) {
  const row = await findRow(ctx.db, scope, id);
  return toScimGroup(scope, row, withMembers ? await membershipsOf(ctx.db, 'group_id', [row.id]) : null);
}

export async function listGroups(
  ctx: UsersContext,
  scope: ScimScope,
  conditions: Condition[],
  page: ListPage,
  withMembers: boolean,
) {
  let query = ctx.db.selectFrom('scim_groups').where('organisation_id', '=', scope.organisationId);
  for (const c of conditions) {
    if (c.field === 'displayName') query = query.where('display_name', '=', c.value);
    else if (c.field === 'externalId') query = query.where('external_id', '=', c.value);
    else if (!uuidSchema.safeParse(c.value).success) return listResponse([], 0, page);
    else if (c.field === 'id') query = query.where('id', '=', c.value);
    else {
      const userId = c.value;
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('scim_group_members')
            .select('scim_group_members.user_id')
            .whereRef('scim_group_members.group_id', '=', 'scim_groups.id')
            .where('scim_group_members.user_id', '=', userId),
        ),
      );
    }
  }
  const [rows, count] = await Promise.all([
    page.count === 0
      ? Promise.resolve([])
      : query
          .select(GROUP_COLUMNS)
          .orderBy('created_at')
          .orderBy('id')
          .limit(page.count)
          .offset(page.startIndex - 1)
          .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const members = withMembers
    ? await membershipsOf(
        ctx.db,
        'group_id',
        rows.map((r) => r.id),
      )
    : null;
  return listResponse(
    rows.map((r) => toScimGroup(scope, r, members)),
    Number(count.n),
    page,
  );
}

export const groupInputSchema = z.object({
  displayName: z.string().trim().min(1).max(256),
  externalId: z.string().max(256).nullish(),
  members: z
    .array(z.object({ value: z.string().max(100) }).passthrough())
    .max(10_000)
    .nullish(),
});

interface DesiredGroup {
  displayName: string;
  externalId: string | null | undefined;
  /** Undefined: unchanged (a PUT without `members` keeps them). */
  memberIds: string[] | undefined;
}

function readGroup(body: unknown): DesiredGroup {
  const parsed = groupInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidValue(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return {
    displayName: parsed.data.displayName,
    externalId: parsed.data.externalId,
    memberIds:
      parsed.data.members === undefined
        ? undefined
        : [...new Set((parsed.data.members ?? []).map((m) => m.value))],
  };
}

/**
 * Members must be people of the token's organisation the directory can see (400 otherwise). A
 * person the directory did not create becomes one it manages once it puts them in a group.
 */
async function adoptMembers(
  trx: Transaction<UsersDb>,
  scope: ScimScope,
  ids: string[],
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  const bad = ids.find((id) => !uuidSchema.safeParse(id).success);
  if (bad !== undefined)
    throw invalidValue(`members: no User of this organisation has the id ${bad.slice(0, 64)}.`);
  const found = await trx
    .selectFrom('users')
    .leftJoin('scim_users', 'scim_users.user_id', 'users.id')
    .select(['users.id', 'users.email'])
    .where('users.organisation_id', '=', scope.organisationId)
    .where('users.role', '!=', 'super-admin')
    .where('scim_users.deleted_at', 'is', null)
    .where('users.id', 'in', ids)
    .execute();
  const known = new Set(found.map((r) => r.id));
  const missing = ids.find((id) => !known.has(id));
  if (missing !== undefined)
    throw invalidValue(`members: no User of this organisation has the id ${missing}.`);
  await trx
    .insertInto('scim_users')
    .values(
      found.map((r) => ({
        user_id: r.id,
        organisation_id: scope.organisationId,
        external_id: null,
        user_name: r.email,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })),
    )
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

const nameTaken = () => new ScimError(409, 'A Group with this displayName exists.', 'uniqueness');

/** Writes the group and its members, then recomputes everyone whose groups changed. */
async function writeGroup(
  ctx: UsersContext,
  scope: ScimScope,
  id: string,
  desired: DesiredGroup,
  existing: GroupRow | null,
): Promise<void> {
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (existing === null) {
        await trx
          .insertInto('scim_groups')
          .values({
            id,
            organisation_id: scope.organisationId,
            display_name: desired.displayName,
            external_id: desired.externalId ?? null,
            created_at: now,
            updated_at: now,
          })
          .execute();
      } else {
        await trx
          .updateTable('scim_groups')
          .set({
            display_name: desired.displayName,
            external_id: desired.externalId === undefined ? existing.external_id : desired.externalId,
            updated_at: now,
          })
          .where('id', '=', id)
          .execute();
      }
      const before = (
        await trx.selectFrom('scim_group_members').select('user_id').where('group_id', '=', id).execute()
      ).map((r) => r.user_id);
      let touched = existing !== null && existing.display_name !== desired.displayName ? before : [];
      if (desired.memberIds !== undefined) {
        const after = desired.memberIds;
        const added = after.filter((u) => !before.includes(u));
        const removed = before.filter((u) => !after.includes(u));
        await adoptMembers(trx, scope, added, now);
        if (removed.length > 0) {
          await trx
            .deleteFrom('scim_group_members')
            .where('group_id', '=', id)
            .where('user_id', 'in', removed)
            .execute();
        }
        if (added.length > 0) {
          await trx
            .insertInto('scim_group_members')
            .values(added.map((user_id) => ({ group_id: id, user_id })))
            // A parallel request added them already: membership is a set.
            .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
            .execute();
        }
        touched = [...new Set([...touched, ...added, ...removed])];
      }
      await applyGroupMappings(trx, scope.organisationId, scope.origin, now, touched);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
}

export async function createGroup(ctx: UsersContext, scope: ScimScope, body: unknown): Promise<ScimGroup> {
  const desired = readGroup(body);
  const id = randomUUID();
  await writeGroup(ctx, scope, id, desired, null);
  return getGroup(ctx, scope, id);
}

export async function replaceGroup(ctx: UsersContext, scope: ScimScope, id: string, body: unknown) {
  const existing = await findRow(ctx.db, scope, id);
  await writeGroup(ctx, scope, id, readGroup(body), existing);
  return getGroup(ctx, scope, id);
}

/** PATCH: rename, members add/remove/replace in Entra's and Okta's forms (scim-patch applies them). */
export async function patchGroup(ctx: UsersContext, scope: ScimScope, id: string, body: unknown) {
  const operations = parsePatch(body);
  const existing = await findRow(ctx.db, scope, id);
  const current = toScimGroup(scope, existing, await membershipsOf(ctx.db, 'group_id', [id]));
  const patched = applyPatch(
    {
      ...current,
      members: current.members ?? [],
      meta: { ...current.meta, created: new Date(), lastModified: new Date() },
    },
    operations,
  );
  await writeGroup(ctx, scope, id, readGroup({ ...patched, members: patched.members ?? [] }), existing);
  return getGroup(ctx, scope, id);
}

export async function deleteGroup(ctx: UsersContext, scope: ScimScope, id: string): Promise<void> {
  await findRow(ctx.db, scope, id);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const members = (
      await trx.selectFrom('scim_group_members').select('user_id').where('group_id', '=', id).execute()
    ).map((r) => r.user_id);
    await trx
      .deleteFrom('scim_groups')
      .where('id', '=', id)
      .where('organisation_id', '=', scope.organisationId)
      .execute();
    await applyGroupMappings(trx, scope.organisationId, scope.origin, now, members);
  });
}
