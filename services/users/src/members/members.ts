import { sql, type RawBuilder } from 'kysely';
import type { z } from 'zod';
import type { memberSchema } from '@acme/users-contract/console';
import type { Kysely } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { requestJson } from '../clients/http-json.ts';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { ROLES, isRole, type Role } from '../users/roles.ts';
import type { ConsoleCaller } from '../access/auth.ts';
import { recordEvent, type EventOrigin } from '../events/events.ts';
import { revokeApiClient } from '../api-clients/service.ts';

/** The highest role the console ever assigns: provider-staff roles are the operator's alone. */
const HIGHEST_ASSIGNABLE: Role = 'org-admin';

const rank = (role: Role): number => ROLES.indexOf(role);

/** Roles this caller may hand out: up to their own, never above org-admin. */
export function assignableRoles(callerRole: Role): Role[] {
  const cap = Math.min(rank(callerRole), rank(HIGHEST_ASSIGNABLE));
  return ROLES.filter((r) => rank(r) <= cap);
}

/** The console's member (the contract's single definition). */
export type Member = z.infer<typeof memberSchema>;

type MemberRow = {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  created_at: Date;
  deactivated_at: Date | null;
  managed_by_directory: boolean;
};

const MEMBER_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'role',
  'created_at',
  'deactivated_at',
] as const;

/**
 * Whether the directory manages the person's role: SCIM provisioned them (and has not deleted
 * them) and the organisation's group mapping grants roles.
 */
const managedByDirectory = sql<boolean>`exists (
  select 1 from scim_users su
  join scim_settings ss on ss.organisation_id = su.organisation_id
  where su.user_id = users.id and su.deleted_at is null
    and exists (select 1 from jsonb_array_elements(ss.group_mappings) m where m->>'role' is not null)
)`.as('managed_by_directory');

function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: isRole(row.role) ? row.role : 'member',
    status: row.deactivated_at === null ? 'active' : 'deactivated',
    createdAt: new Date(row.created_at).toISOString(),
    deactivatedAt: row.deactivated_at === null ? null : new Date(row.deactivated_at).toISOString(),
    managedBy: row.managed_by_directory ? 'directory' : null,
  };
}

/** Above every character a name or address holds (the last code point, a noncharacter). */
const LAST_CHARACTER = String.fromCodePoint(0x10ffff);

/**
 * `column` starts with `text`, lower-cased: the range [text, text + the last character) in the
 * byte order of the text_pattern_ops indexes, so every character, `%` and `_` too, matches only
 * itself. A range and not `LIKE 'text%'`: the pool prepares statements, and a prepared statement's
 * generic plan cannot turn `LIKE $1` into an index range (PostgreSQL then filters every member of
 * the organisation), while it can use a range whose bounds are parameters.
 */
function startsWith(column: RawBuilder<string>, text: string) {
  const prefix = text.toLowerCase();
  return sql<boolean>`(${column} ~>=~ ${prefix} and ${column} ~<~ ${prefix + LAST_CHARACTER})`;
}

/**
 * A search counts its matches up to this many past the page it shows; beyond, its total is a floor
 * (`totalExact: false`: "1,025 or more" on a first page of 25), so a broad prefix costs the page,
 * not every match.
 */
export const SEARCH_COUNT_BEYOND = 1000;

/** The three search conditions, each served by its own index (address, full name, last name). */
const SEARCHED = [
  sql<string>`email`,
  sql<string>`lower(first_name || ' ' || last_name)`,
  sql<string>`lower(last_name)`,
];

/**
 * The ids of the organisation's people whose address, full name or last name starts with `text`,
 * at most `each` per field: one index range each (the three search indexes), read in the index's
 * order, so a search reads what it finds (never the whole organisation: an OR of the three in one
 * condition may be planned as a filter over every member) and never more than `each` rows of a field.
 */
function matchingIds(db: Kysely<UsersDb>, organisationId: string, text: string, each: number) {
  const inOrganisation = (column: RawBuilder<string>, n: number) =>
    db
      .selectFrom(
        db
          .selectFrom('users')
          .select('id')
          .where('organisation_id', '=', organisationId)
          .where(startsWith(column, text))
          .orderBy(sql`${column} using ~<~`)
          .limit(each)
          .as(`m${n}`),
      )
      .select('id');
  const [email, name, lastName] = SEARCHED.map(inOrganisation);
  return email!.union(name!).union(lastName!);
}

const memberRows = (db: Kysely<UsersDb>) =>
  db.selectFrom('users').select([...MEMBER_COLUMNS, managedByDirectory]);

/**
 * Members page by page, by address. Without `q`, the organisation's exact total. `q` finds those
 * whose address, full name or last name starts with it, counted up to `SEARCH_COUNT_BEYOND` past
 * the page (at most that many rows of each search index). When they are fewer, the page comes from
 * them, sorted. When there are more (a broad prefix: "b" is about one in ten), the page comes from
 * the organisation read in address order and filtered, which finds the page after about
 * (page × size) ÷ (the share that matches) members; PostgreSQL is told not to sort or gather every
 * match instead (a plan blind to the text, as a prepared statement's may be, could choose so).
 */
export async function listMembers(
  db: Kysely<UsersDb>,
  organisationId: string,
  options: { q?: string; page: number; pageSize: number },
): Promise<{ members: Member[]; total: number; totalExact: boolean }> {
  const q = options.q !== undefined && options.q.length > 0 ? options.q : undefined;
  const offset = (options.page - 1) * options.pageSize;
  const page = async (query: ReturnType<typeof memberRows>) =>
    (await query.orderBy('email').limit(options.pageSize).offset(offset).execute()).map(toMember);
  if (q === undefined) {
    const [members, counted] = await Promise.all([
      page(memberRows(db).where('organisation_id', '=', organisationId)),
      db
        .selectFrom('users')
        .where('organisation_id', '=', organisationId)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { members, total: Number(counted.n), totalExact: true };
  }
  const bound = offset + options.pageSize + SEARCH_COUNT_BEYOND;
  // Each field's range stops one past the bound: a union of no more than the bound is complete.
  const matches = matchingIds(db, organisationId, q, bound + 1);
  const counted = await db
    .selectFrom(matches.as('m'))
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const found = Number(counted.n);
  if (found <= bound) {
    // A search starts from what it found (the matches are of this organisation already): with the
    // organisation's own condition here, a generic plan may read all its members to join them.
    return { members: await page(memberRows(db).where('id', 'in', matches)), total: found, totalExact: true };
  }
  const members = await db.transaction().execute(async (trx) => {
    await sql`set local enable_bitmapscan = off`.execute(trx);
    await sql`set local enable_sort = off`.execute(trx);
    return page(
      memberRows(trx)
        .where('organisation_id', '=', organisationId)
        .where((eb) => eb.or(SEARCHED.map((column) => startsWith(column, q)))),
    );
  });
  return { members, total: bound, totalExact: false };
}

/** The member, only when they belong to `organisationId` (another organisation's ids are unknown here). */
export async function findMember(
  db: Kysely<UsersDb>,
  organisationId: string,
  userId: string,
): Promise<(Member & { identityId: string | null }) | null> {
  const row = await db
    .selectFrom('users')
    .select([...MEMBER_COLUMNS, managedByDirectory, 'identity_id'])
    .where('id', '=', userId)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return row ? { ...toMember(row), identityId: row.identity_id } : null;
}

async function memberOrThrow(ctx: UsersContext, organisationId: string, userId: string) {
  const member = await findMember(ctx.db, organisationId, userId);
  if (!member) throw new AppError('USER_NOT_FOUND', 'No member of this organisation has this id.');
  return member;
}

/** The caller may act on members up to their own role, never on a provider-staff account. */
/** The member, once the caller is found allowed to manage them. */
async function managedMember(
  ctx: UsersContext,
  caller: ConsoleCaller,
  organisationId: string,
  userId: string,
) {
  const member = await memberOrThrow(ctx, organisationId, userId);
  assertMayManage(caller, member);
  return member;
}

function assertMayManage(caller: ConsoleCaller, target: { role: Role }): void {
  if (rank(target.role) > Math.min(rank(caller.role), rank(HIGHEST_ASSIGNABLE))) {
    throw new AppError('PERMISSION_DENIED', 'You cannot manage a member with a higher role than yours.');
  }
}

function lastOrgAdmin(): AppError {
  return new AppError(
    'LAST_ORG_ADMIN',
    'The organisation needs at least one active org-admin: appoint another one first.',
  );
}

/**
 * Takes the organisation's row lock, which every change of a member's role or active state holds
 * first: such changes of one organisation run one after another. Locking the org-admins' rows
 * alone deadlocked under parallel demotions and deactivations (PostgreSQL 40P01): a member read as
 * org-admin before the transaction may have lost the role by then, so their row was updated after
 * the others were locked, out of order.
 */
async function lockOrganisationMembers(trx: Kysely<UsersDb>, organisationId: string): Promise<void> {
  await trx
    .selectFrom('organisations')
    .select('id')
    .where('id', '=', organisationId)
    .forNoKeyUpdate()
    .execute();
}

/** The member's role now, read under the organisation's lock (what was read before may be stale). */
async function currentRole(trx: Kysely<UsersDb>, userId: string): Promise<Role | undefined> {
  const row = await trx.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
  return row?.role as Role | undefined;
}

/**
 * Locks the organisation's org-admins who can sign in (row locks, so two admins demoting each other
 * at once cannot both succeed) and refuses when `userId` is the last of them. Only someone who can
 * sign in counts: not deactivated, with an identity, and not an invitee who never onboarded (an
 * invitation pending, expired or revoked): the only real admin can not step down behind them.
 */
async function assertNotLastOrgAdmin(trx: Kysely<UsersDb>, organisationId: string, userId: string) {
  const admins = await trx
    .selectFrom('users')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('role', '=', 'org-admin')
    .where('deactivated_at', 'is', null)
    .where('identity_id', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('invitations')
            .select('invitations.id')
            .whereRef('invitations.user_id', '=', 'users.id')
            .where('invitations.state', '!=', 'accepted'),
        ),
      ),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
  if (admins.length <= 1 && admins.some((a) => a.id === userId)) throw lastOrgAdmin();
}

export async function changeRole(
  ctx: UsersContext,
  caller: ConsoleCaller,
  origin: EventOrigin,
  organisationId: string,
  userId: string,
  role: Role,
): Promise<Member> {
  const member = await managedMember(ctx, caller, organisationId, userId);
  if (member.managedBy === 'directory') {
    throw new AppError(
      'MANAGED_BY_DIRECTORY',
      "This member's role follows your directory's groups: change it in your directory.",
    );
  }
  if (!assignableRoles(caller.role).includes(role)) {
    throw new AppError('PERMISSION_DENIED', `You cannot assign the role ${role}.`);
  }
  if (member.role === role) return member;
  await ctx.db.transaction().execute(async (trx) => {
    await lockOrganisationMembers(trx, organisationId);
    const from = (await currentRole(trx, userId)) ?? member.role;
    if (from === role) return;
    if (from === 'org-admin') await assertNotLastOrgAdmin(trx, organisationId, userId);
    await trx.updateTable('users').set({ role }).where('id', '=', userId).execute();
    await recordEvent(
      trx,
      origin,
      {
        organisationId,
        type: 'member.role_changed',
        subjectId: userId,
        details: { from, to: role },
      },
      ctx.clock.now(),
    );
  });
  return (await findMember(ctx.db, organisationId, userId))!;
}

/**
 * Deactivates a member through the one deprovisioning routine (`applyDeactivation`). Idempotent: a
 * retry after an upstream failure repeats the upstream calls.
 */
export async function deactivateMember(
  ctx: UsersContext,
  caller: ConsoleCaller,
  origin: EventOrigin,
  organisationId: string,
  userId: string,
): Promise<Member> {
  const member = await managedMember(ctx, caller, organisationId, userId);
  await applyDeactivation(ctx, origin, organisationId, member, { keepLastOrgAdmin: true });
  return (await findMember(ctx.db, organisationId, userId))!;
}

/** Deactivates (a time) or reactivates (null) the record; false when it already was. */
async function setDeactivatedAt(trx: Kysely<UsersDb>, userId: string, at: Date | null): Promise<boolean> {
  const updated = await trx
    .updateTable('users')
    .set({ deactivated_at: at })
    .where('id', '=', userId)
    .where('deactivated_at', at === null ? 'is not' : 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * The one deprovisioning routine, for the console, the directory (SCIM `active: false`, DELETE) and
 * the operator (`user:deactivate`, `DELETE /admin/users/{id}`). In this order:
 * 1. the record says deactivated (our console and token claims refuse the person from then on);
 * 2. the identity is made inactive and its sessions end (no new sign-in, whoami 401);
 * 3. every grant of the identity at the authorization server ends, with every token of it: the
 *    refresh token, and the access tokens already issued, which `/userinfo` and introspection
 *    refuse at once (they look the grant up in the database on every instance);
 * 4. the API clients the person created are revoked (no new token; listed as revoked).
 * `keepLastOrgAdmin`: refuse to deactivate the organisation's last org-admin who can sign in (the
 * console, the operator); the directory's word is final (someone who left must lose access).
 * Idempotent, so a retry after an upstream failure completes a partial run.
 */
export async function applyDeactivation(
  ctx: UsersContext,
  origin: EventOrigin,
  organisationId: string,
  member: Pick<Member, 'id' | 'role' | 'status'> & { identityId: string | null },
  options: { keepLastOrgAdmin: boolean },
): Promise<void> {
  if (member.status === 'active') {
    await ctx.db.transaction().execute(async (trx) => {
      await lockOrganisationMembers(trx, organisationId);
      const role = (await currentRole(trx, member.id)) ?? member.role;
      if (options.keepLastOrgAdmin && role === 'org-admin') {
        await assertNotLastOrgAdmin(trx, organisationId, member.id);
      }
      const now = ctx.clock.now();
      if (!(await setDeactivatedAt(trx, member.id, now))) return;
      await recordEvent(
        trx,
        origin,
        { organisationId, type: 'member.deactivated', subjectId: member.id },
        now,
      );
    });
  }
  if (member.identityId !== null) {
    await ctx.identityAdmin.patchIdentity(member.identityId, [
      { op: 'replace', path: '/state', value: 'inactive' },
    ]);
    await ctx.identityAdmin.deleteSessions(member.identityId);
    await ctx.oauth2Admin.revokeConsentSessions(member.identityId);
  }
  const clients = await ctx.db
    .selectFrom('api_clients')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('created_by', '=', member.id)
    .where('revoked_at', 'is', null)
    .execute();
  for (const client of clients) await revokeApiClient(ctx, client.id, undefined, origin);
}

/** Reactivates a member: the identity first (so a failure leaves them still deactivated), then the record. */
export async function reactivateMember(
  ctx: UsersContext,
  caller: ConsoleCaller,
  origin: EventOrigin,
  organisationId: string,
  userId: string,
): Promise<Member> {
  const member = await managedMember(ctx, caller, organisationId, userId);
  const deleted = await ctx.db
    .selectFrom('scim_users')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('deleted_at', 'is not', null)
    .executeTakeFirst();
  if (deleted) {
    // The record stays for the audit trail only: the directory deleted the person (issue 26).
    throw new AppError(
      'MANAGED_BY_DIRECTORY',
      'Your directory removed this member. To give them access again, assign them in your directory.',
    );
  }
  await applyReactivation(ctx, origin, organisationId, member);
  return (await findMember(ctx.db, organisationId, userId))!;
}

/** The reactivation itself, for the console and the directory (SCIM `active: true`). */
export async function applyReactivation(
  ctx: UsersContext,
  origin: EventOrigin,
  organisationId: string,
  member: Pick<Member, 'id' | 'status'> & { identityId: string | null },
): Promise<void> {
  if (member.status === 'active') return;
  if (member.identityId !== null) {
    await ctx.identityAdmin.patchIdentity(member.identityId, [
      { op: 'replace', path: '/state', value: 'active' },
    ]);
  }
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await setDeactivatedAt(trx, member.id, null))) return;
    await recordEvent(
      trx,
      origin,
      { organisationId, type: 'member.reactivated', subjectId: member.id },
      ctx.clock.now(),
    );
  });
}

/** One of the console's member events, recorded outside a transaction. */
const memberEvent = (
  ctx: UsersContext,
  origin: EventOrigin,
  organisationId: string,
  type: 'member.sessions_ended' | 'member.unlocked' | 'member.two_factor_reset',
  subjectId: string,
) => recordEvent(ctx.db, origin, { organisationId, type, subjectId }, ctx.clock.now());

/** A call to the identity service's admin API, with its key and the upstream timeout. */
const identityAdmin = (ctx: UsersContext, method: 'POST' | 'DELETE', path: string, body?: unknown) =>
  requestJson('identity service', `${ctx.config.identityAdminUrl}${path}`, {
    method,
    headers: adminAuthHeaders(ctx.config.identityAdminKey),
    ...(body === undefined ? {} : { body }),
    timeoutMs: ctx.config.upstreamTimeoutMs,
  });

/** Ends every session of the member (and so their grants at the next refresh). */
export async function endMemberSessions(
  ctx: UsersContext,
  caller: ConsoleCaller,
  origin: EventOrigin,
  organisationId: string,
  userId: string,
): Promise<void> {
  const member = await managedMember(ctx, caller, organisationId, userId);
  if (member.identityId !== null) await ctx.identityAdmin.deleteSessions(member.identityId);
  await memberEvent(ctx, origin, organisationId, 'member.sessions_ended', userId);
}

/** Ends the member's sign-in lockout through the identity service's `/admin/lockouts/reset`. */
export async function unlockMember(
  ctx: UsersContext,
  caller: ConsoleCaller,
  origin: EventOrigin,
  organisationId: string,
  userId: string,
): Promise<void> {
  const member = await managedMember(ctx, caller, organisationId, userId);
  const res = await identityAdmin(ctx, 'POST', '/admin/lockouts/reset', { identifier: member.email });
  if (res.status !== 204 && res.status !== 200) {
    throw new AppError('UPSTREAM_ERROR', `The identity service answered ${res.status} to an unlock.`);
  }
  await memberEvent(ctx, origin, organisationId, 'member.unlocked', userId);
}

/**
 * Resets the member's second factor: the identity's TOTP and backup codes go (absent ones are
 * fine), and their sessions end, so the next sign-in asks them to set 2FA up again.
 */
export async function resetMemberTwoFactor(
  ctx: UsersContext,
  caller: ConsoleCaller,
  origin: EventOrigin,
  organisationId: string,
  userId: string,
): Promise<void> {
  const member = await managedMember(ctx, caller, organisationId, userId);
  if (member.identityId === null)
    throw new AppError('USER_NOT_FOUND', 'This member has no sign-in account yet.');
  for (const type of ['totp', 'lookup_secret', 'webauthn']) {
    const res = await identityAdmin(
      ctx,
      'DELETE',
      `/admin/identities/${encodeURIComponent(member.identityId)}/credentials/${type}`,
    );
    if (res.status !== 204 && res.status !== 404) {
      throw new AppError('UPSTREAM_ERROR', `The identity service answered ${res.status} to a 2FA reset.`);
    }
  }
  await ctx.identityAdmin.deleteSessions(member.identityId);
  await memberEvent(ctx, origin, organisationId, 'member.two_factor_reset', userId);
}
