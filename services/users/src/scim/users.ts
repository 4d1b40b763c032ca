import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { recordEvent } from '../events/events.ts';
import { applyDeactivation, applyReactivation } from '../members/members.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { AppError } from '../http/errors.ts';
import { domainOf, emailSchema, uuidSchema } from '../http/schemas.ts';
import { createInvitation } from '../invitations/service.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { findProviderByOrganisation } from '../sso/repository.ts';
import { createUser, removeUserAndIdentity } from '../users/create-user.ts';
import { findUserRowByEmail } from '../users/repository.ts';
import { SCHEMA } from './discovery.ts';
import { invalidValue, ScimError, scimNotFound } from './errors.ts';
import type { Condition } from './filter.ts';
import { applyPatch, parsePatch, scimBoolean } from './patch.ts';
import { applyGroupMappings } from '../directory/settings.ts';
import { listResponse, type ListPage, type ScimScope } from './scope.ts';
import { membershipsOf, type Membership } from './memberships.ts';

/**
 * SCIM Users (RFC 7643 §4.1) over the organisation's people. The token's organisation bounds every
 * query; provider staff are never listed. `userName` is the person's address in one of the
 * organisation's domains; the directory cannot change it (400 mutability). A person SCIM creates
 * gets, in an organisation that signs in by password, the usual invitation mail; with SSO, an
 * identity without password (they sign in through their provider).
 */

type Db = Kysely<UsersDb>;

interface UserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  identity_id: string | null;
  created_at: Date;
  deactivated_at: Date | null;
  external_id: string | null;
  updated_at: Date | null;
}

/**
 * The organisation's people SCIM sees: not provider staff, not deleted by the directory. "Not
 * deleted" is a lookup in the (small) set of deleted ones rather than a condition on the joined row,
 * so that a count, which reads nothing else of `scim_users`, drops the join and reads the index on
 * the organisation's people alone.
 */
function visibleUsers(db: Db, organisationId: string) {
  return db
    .selectFrom('users')
    .leftJoin('scim_users', 'scim_users.user_id', 'users.id')
    .where('users.organisation_id', '=', organisationId)
    .where('users.role', '!=', 'super-admin')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('scim_users as deleted')
            .select('deleted.user_id')
            .whereRef('deleted.user_id', '=', 'users.id')
            .where('deleted.deleted_at', 'is not', null),
        ),
      ),
    );
}

const USER_COLUMNS = [
  'users.id',
  'users.email',
  'users.first_name',
  'users.last_name',
  'users.role',
  'users.identity_id',
  'users.created_at',
  'users.deactivated_at',
  'scim_users.external_id',
  'scim_users.updated_at',
] as const;

function toScimUser(scope: ScimScope, row: UserRow, groups: Membership[]) {
  const location = `${scope.baseUrl}/Users/${row.id}`;
  return {
    schemas: [SCHEMA.user],
    id: row.id,
    ...(row.external_id === null ? {} : { externalId: row.external_id }),
    userName: row.email,
    name: {
      formatted: `${row.first_name} ${row.last_name}`.trim(),
      givenName: row.first_name,
      familyName: row.last_name,
    },
    displayName: `${row.first_name} ${row.last_name}`.trim(),
    active: row.deactivated_at === null,
    emails: [{ value: row.email, type: 'work', primary: true }],
    groups: groups
      .filter((g) => g.userId === row.id)
      .map((g) => ({ value: g.groupId, display: g.groupName, $ref: `${scope.baseUrl}/Groups/${g.groupId}` })),
    meta: {
      resourceType: 'User',
      created: new Date(row.created_at).toISOString(),
      lastModified: new Date(row.updated_at ?? row.created_at).toISOString(),
      location,
    },
  };
}

export type ScimUser = ReturnType<typeof toScimUser>;

async function findRow(ctx: UsersContext, scope: ScimScope, id: string): Promise<UserRow> {
  if (!uuidSchema.safeParse(id).success) throw scimNotFound('User');
  const row = await visibleUsers(ctx.db, scope.organisationId)
    .select(USER_COLUMNS)
    .where('users.id', '=', id)
    .executeTakeFirst();
  if (!row) throw scimNotFound('User');
  return row;
}

export async function getUser(ctx: UsersContext, scope: ScimScope, id: string): Promise<ScimUser> {
  const row = await findRow(ctx, scope, id);
  return toScimUser(scope, row, await membershipsOf(ctx.db, 'user_id', [row.id]));
}

/**
 * Deep pages by keyset under the `startIndex` contract: when a page ends, the id of its last row is
 * remembered under (organisation, filter, the next page's startIndex). A client walking the list
 * page by page asks for exactly that startIndex next, and its page then starts after that row in
 * (created_at, id) order, an index range scan, instead of skipping startIndex - 1 rows. Any other
 * startIndex (a jump, another instance, an evicted entry) skips by offset as before. The two agree
 * while the list does not change between pages; when it does, the keyset page neither repeats nor
 * skips anyone, which offset paging cannot promise (SCIM leaves paging over a changing list unspecified).
 */
const PAGE_ENDS_KEPT = 1000;
const pageEnds = new Map<string, string>();

function pageEndKey(organisationId: string, conditions: Condition[], startIndex: number): string {
  return JSON.stringify([organisationId, conditions, startIndex]);
}

function rememberPageEnd(key: string, lastId: string): void {
  pageEnds.delete(key);
  pageEnds.set(key, lastId);
  if (pageEnds.size > PAGE_ENDS_KEPT) pageEnds.delete(pageEnds.keys().next().value!);
}

export async function listUsers(
  ctx: UsersContext,
  scope: ScimScope,
  conditions: Condition[],
  page: ListPage,
) {
  let query = visibleUsers(ctx.db, scope.organisationId);
  for (const c of conditions) {
    if (c.field === 'userName') query = query.where('users.email', '=', c.value.trim().toLowerCase());
    else if (c.field === 'externalId') query = query.where('scim_users.external_id', '=', c.value);
    else if (c.field === 'id') {
      if (!uuidSchema.safeParse(c.value).success) return listResponse([], 0, page);
      query = query.where('users.id', '=', c.value);
    }
  }
  const after = pageEnds.get(pageEndKey(scope.organisationId, conditions, page.startIndex));
  const ordered = query
    .select(USER_COLUMNS)
    .orderBy('users.created_at')
    .orderBy('users.id')
    .limit(page.count);
  const [rows, count] = await Promise.all([
    page.count === 0
      ? Promise.resolve([])
      : after === undefined
        ? ordered.offset(page.startIndex - 1).execute()
        : ordered
            .where(
              (eb) =>
                sql<boolean>`(${eb.ref('users.created_at')}, ${eb.ref('users.id')}) > (select u.created_at, u.id from users u where u.id = ${after})`,
            )
            .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const last = rows.at(-1);
  if (last && rows.length === page.count)
    rememberPageEnd(pageEndKey(scope.organisationId, conditions, page.startIndex + page.count), last.id);
  const groups = await membershipsOf(
    ctx.db,
    'user_id',
    rows.map((r) => r.id),
  );
  return listResponse(
    rows.map((r) => toScimUser(scope, r, groups)),
    Number(count.n),
    page,
  );
}

const nameField = z.string().trim().min(1).max(100);

/** The attributes of a User we read; everything else (extensions, phone numbers…) is ignored. */
export const userInputSchema = z.object({
  userName: z.string().max(254),
  externalId: z.string().max(256).nullish(),
  name: z.object({ givenName: nameField.nullish(), familyName: nameField.nullish() }).partial().nullish(),
  active: z.unknown().optional(),
});

interface Desired {
  email: string;
  externalId: string | null | undefined;
  firstName: string | undefined;
  lastName: string | undefined;
  active: boolean | undefined;
}

function readUser(body: unknown): Desired {
  const parsed = userInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidValue(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const email = emailSchema.safeParse(parsed.data.userName);
  if (!email.success) throw invalidValue('userName must be an email address.');
  const active = parsed.data.active === undefined ? undefined : scimBoolean(parsed.data.active);
  if (parsed.data.active !== undefined && active === undefined)
    throw invalidValue('active must be a boolean.');
  return {
    email: email.data,
    externalId: parsed.data.externalId,
    firstName: parsed.data.name?.givenName ?? undefined,
    lastName: parsed.data.name?.familyName ?? undefined,
    active,
  };
}

const uniqueness = (detail: string) => new ScimError(409, detail, 'uniqueness');

export async function createScimUser(ctx: UsersContext, scope: ScimScope, body: unknown): Promise<ScimUser> {
  const desired = readUser(body);
  const organisation = await findOrganisation(ctx.db, scope.organisationId);
  if (!organisation) throw scimNotFound();
  if (!organisation.domains.includes(domainOf(desired.email))) {
    throw invalidValue("userName must be an address in one of the organisation's domains.");
  }
  if (await findUserRowByEmail(ctx.db, desired.email)) throw uniqueness('A User with this userName exists.');
  if (desired.externalId) await assertExternalIdFree(ctx.db, scope.organisationId, desired.externalId, null);
  const local = desired.email.slice(0, desired.email.indexOf('@'));
  const input = {
    organisationId: organisation.id,
    email: desired.email,
    firstName: desired.firstName ?? local.slice(0, 100),
    lastName: desired.lastName ?? organisation.name.slice(0, 100),
    role: 'member' as const,
    isGitUser: false,
    scopeGroups: [],
  };
  let userId: string;
  let identityId: string | null;
  try {
    if (await findProviderByOrganisation(ctx.db, organisation.id)) {
      // Signs in by SSO: the provider vouches for the address; no password, no invitation.
      const user = await createUser(ctx, input, { emailVerified: true });
      ({ id: userId, identityId } = user);
    } else {
      // Signs in by password: the usual invitation mail, recorded as the directory's.
      const invitation = await createInvitation(ctx, input, (trx, inv) =>
        recordEvent(
          trx,
          scope.origin,
          {
            organisationId: inv.organisationId,
            type: 'member.invited',
            subjectId: inv.userId,
            details: { role: 'member' },
          },
          ctx.clock.now(),
        ),
      );
      userId = invitation.userId;
      identityId = invitation.identityId;
    }
  } catch (error) {
    if (error instanceof AppError && error.errorCode === 'USER_EXISTS') {
      throw uniqueness('A User with this userName exists.');
    }
    throw error;
  }
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('scim_users')
        .values({
          user_id: userId,
          organisation_id: organisation.id,
          external_id: desired.externalId ?? null,
          user_name: desired.email,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        })
        .execute();
      await applyGroupMappings(trx, organisation.id, scope.origin, now, [userId]);
    });
  } catch (error) {
    if (identityId !== null) await removeUserAndIdentity(ctx, userId, identityId).catch(() => undefined);
    if (isUniqueViolation(error)) throw uniqueness('A User with this externalId exists.');
    throw error;
  }
  if (desired.active === false) await deactivate(ctx, scope, await findRow(ctx, scope, userId));
  return getUser(ctx, scope, userId);
}

async function assertExternalIdFree(
  db: Db,
  organisationId: string,
  externalId: string,
  userId: string | null,
) {
  const taken = await db
    .selectFrom('scim_users')
    .select('user_id')
    .where('organisation_id', '=', organisationId)
    .where('external_id', '=', externalId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (taken && taken.user_id !== userId) throw uniqueness('A User with this externalId exists.');
}

/**
 * Deactivates at once (SCIM `active: false`, DELETE) through the one deprovisioning routine
 * (`applyDeactivation`: record, identity, sessions, grants and their access tokens, API clients).
 * Idempotent, so the directory's retry completes a partial run.
 */
async function deactivate(ctx: UsersContext, scope: ScimScope, row: UserRow): Promise<void> {
  await applyDeactivation(
    ctx,
    scope.origin,
    scope.organisationId,
    {
      id: row.id,
      role: row.role === 'org-admin' ? 'org-admin' : 'member',
      status: row.deactivated_at === null ? 'active' : 'deactivated',
      identityId: row.identity_id,
    },
    { keepLastOrgAdmin: false },
  );
}

/** Makes the person what `desired` says (PUT, and PATCH after its operations are applied). */
async function applyUser(
  ctx: UsersContext,
  scope: ScimScope,
  row: UserRow,
  desired: Desired,
): Promise<ScimUser> {
  if (desired.email !== row.email) {
    throw new ScimError(
      400,
      'userName cannot change: deprovision the User and create a new one.',
      'mutability',
    );
  }
  const now = ctx.clock.now();
  const firstName = desired.firstName ?? row.first_name;
  const lastName = desired.lastName ?? row.last_name;
  const externalId = desired.externalId === undefined ? row.external_id : desired.externalId;
  if (externalId && externalId !== row.external_id) {
    await assertExternalIdFree(ctx.db, scope.organisationId, externalId, row.id);
  }
  if ((firstName !== row.first_name || lastName !== row.last_name) && row.identity_id !== null) {
    await ctx.identityAdmin.patchIdentity(row.identity_id, [
      { op: 'replace', path: '/traits/name/first', value: firstName },
      { op: 'replace', path: '/traits/name/last', value: lastName },
    ]);
  }
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ first_name: firstName, last_name: lastName })
        .where('id', '=', row.id)
        .execute();
      // The first write of the directory on a person it did not create adopts them.
      await trx
        .insertInto('scim_users')
        .values({
          user_id: row.id,
          organisation_id: scope.organisationId,
          external_id: externalId,
          user_name: row.email,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ external_id: externalId, updated_at: now }))
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw uniqueness('A User with this externalId exists.');
    throw error;
  }
  if (desired.active === false) await deactivate(ctx, scope, row);
  if (desired.active === true && row.deactivated_at !== null) {
    await applyReactivation(ctx, scope.origin, scope.organisationId, {
      id: row.id,
      status: 'deactivated',
      identityId: row.identity_id,
    });
  }
  return getUser(ctx, scope, row.id);
}

export async function replaceScimUser(ctx: UsersContext, scope: ScimScope, id: string, body: unknown) {
  const row = await findRow(ctx, scope, id);
  return applyUser(ctx, scope, row, readUser(body));
}

export async function patchScimUser(ctx: UsersContext, scope: ScimScope, id: string, body: unknown) {
  const operations = parsePatch(body);
  const row = await findRow(ctx, scope, id);
  const current = toScimUser(scope, row, []);
  const patched = applyPatch(
    { ...current, meta: { ...current.meta, created: new Date(), lastModified: new Date() } },
    operations,
  );
  return applyUser(ctx, scope, row, readUser(patched));
}

/**
 * Deprovisions: deactivated at once (as `active: false`), then the identity is deleted, which frees
 * the address for a new person; the user row stays, deactivated, for the audit trail (its address
 * replaced by a reserved one, the old one kept in scim_users).
 */
export async function deleteScimUser(ctx: UsersContext, scope: ScimScope, id: string): Promise<void> {
  const found = await findRow(ctx, scope, id);
  // A retry after the identity went (and before the row was marked) completes the rest.
  const gone =
    found.identity_id !== null && (await ctx.identityAdmin.getIdentity(found.identity_id)) === null;
  const row = gone ? { ...found, identity_id: null } : found;
  await deactivate(ctx, scope, row);
  if (row.identity_id !== null) await ctx.identityAdmin.deleteIdentity(row.identity_id);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ email: `${row.id}@deleted.invalid`, identity_id: null })
      .where('id', '=', row.id)
      .execute();
    await trx
      .insertInto('scim_users')
      .values({
        user_id: row.id,
        organisation_id: scope.organisationId,
        external_id: row.external_id,
        user_name: row.email,
        created_at: now,
        updated_at: now,
        deleted_at: now,
      })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ deleted_at: now, updated_at: now }))
      .execute();
    await trx.deleteFrom('scim_group_members').where('user_id', '=', row.id).execute();
    await recordEvent(
      trx,
      scope.origin,
      { organisationId: scope.organisationId, type: 'member.deleted', subjectId: row.id },
      now,
    );
  });
}
