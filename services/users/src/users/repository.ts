import type { Kysely, Selectable } from 'kysely';
import type { UsersDb, UsersTable } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { isRole, permissionsOf } from './roles.ts';
import type { User } from './schemas.ts';

export interface NewUserRow {
  id: string;
  organisationId: string;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  scopeGroups: string[];
  createdAt: Date;
}

function toUser(row: Selectable<UsersTable>): User {
  if (!isRole(row.role)) throw new Error(`unknown role in database: ${row.role}`);
  return {
    id: row.id,
    organisationId: row.organisation_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    permissions: [...permissionsOf(row.role)],
    scopeGroups: row.scope_groups,
    identityId: row.identity_id,
    createdAt: row.created_at.toISOString(),
  };
}

/** Inserts a user not yet linked to an identity; a taken email is 409 USER_EXISTS. */
export async function insertUser(db: Kysely<UsersDb>, user: NewUserRow): Promise<void> {
  try {
    await db
      .insertInto('users')
      .values({
        id: user.id,
        organisation_id: user.organisationId,
        email: user.email,
        first_name: user.firstName,
        last_name: user.lastName,
        role: user.role,
        scope_groups: JSON.stringify(user.scopeGroups),
        identity_id: null,
        created_at: user.createdAt,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('USER_EXISTS', 'A user with this email address already exists.');
    throw error;
  }
}

export async function linkIdentity(db: Kysely<UsersDb>, userId: string, identityId: string): Promise<void> {
  await db.updateTable('users').set({ identity_id: identityId }).where('id', '=', userId).execute();
}

export async function deleteUser(db: Kysely<UsersDb>, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

export async function findUserRowByEmail(db: Kysely<UsersDb>, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** Deletes a user row only while it is still unlinked (an orphan of an interrupted creation). */
export async function deleteUnlinkedUser(db: Kysely<UsersDb>, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('users')
    .where('id', '=', userId)
    .where('identity_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findUser(db: Kysely<UsersDb>, id: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toUser(row) : null;
}

export async function listUsers(db: Kysely<UsersDb>, organisationId: string | undefined): Promise<User[]> {
  let query = db.selectFrom('users').selectAll();
  if (organisationId !== undefined) query = query.where('organisation_id', '=', organisationId);
  const rows = await query.orderBy('created_at').orderBy('email').execute();
  return rows.map(toUser);
}

/** A user and their organisation's products, for the claims of an access token. */
export async function findUserWithProducts(
  db: Kysely<UsersDb>,
  id: string,
): Promise<{
  identityId: string | null;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  scopeGroups: string[];
  products: string[];
  subscriptionStatus: 'subscribed' | 'not_subscribed';
  organisationId: string;
  organisationName: string;
} | null> {
  const row = await db
    .selectFrom('users')
    .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
    .select([
      'users.identity_id as identityId',
      'users.email as email',
      'users.first_name as firstName',
      'users.last_name as lastName',
      'users.role as role',
      'users.scope_groups as scopeGroups',
      'organisations.products as products',
      'organisations.subscription_status as subscriptionStatus',
      'organisations.id as organisationId',
      'organisations.name as organisationName',
    ])
    .where('users.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** Changes a user's role and/or scope groups; false when no user has this id. */
export async function updateUser(
  db: Kysely<UsersDb>,
  id: string,
  change: { role?: string | undefined; scopeGroups?: string[] | undefined },
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({
      ...(change.role !== undefined ? { role: change.role } : {}),
      ...(change.scopeGroups !== undefined ? { scope_groups: JSON.stringify(change.scopeGroups) } : {}),
    })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
