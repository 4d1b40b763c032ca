import type { Kysely, Selectable, Transaction } from 'kysely';
import type { InvitationsTable, UsersDb } from '../db-types.ts';
import { isRole } from '../users/roles.ts';
import type { Invitation, InvitationState } from './schemas.ts';

type InvitationRow = Selectable<InvitationsTable> & {
  email: string;
  first_name: string;
  last_name: string;
  role: string;
};

/** Stored states are pending, accepted, revoked; `expired` is a pending one past its expiry. */
function derivedState(row: Pick<InvitationsTable, 'state' | 'expires_at'>, now: Date): InvitationState {
  if (row.state === 'pending' && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return row.state;
}

function toInvitation(row: InvitationRow, now: Date): Invitation {
  if (!isRole(row.role)) throw new Error(`unknown role in database: ${row.role}`);
  return {
    id: row.id,
    state: derivedState(row, now),
    organisationId: row.organisation_id,
    userId: row.user_id,
    identityId: row.identity_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    lastSentAt: row.last_sent_at.toISOString(),
    sendCount: row.send_count,
    acceptedAt: row.accepted_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

function selectInvitations(db: Kysely<UsersDb>) {
  return db
    .selectFrom('invitations')
    .innerJoin('users', 'users.id', 'invitations.user_id')
    .selectAll('invitations')
    .select(['users.email', 'users.first_name', 'users.last_name', 'users.role']);
}

export async function findInvitation(db: Kysely<UsersDb>, id: string, now: Date): Promise<Invitation | null> {
  const row = await selectInvitations(db).where('invitations.id', '=', id).executeTakeFirst();
  return row ? toInvitation(row, now) : null;
}

export async function listInvitations(
  db: Kysely<UsersDb>,
  organisationId: string | undefined,
  now: Date,
): Promise<Invitation[]> {
  let query = selectInvitations(db);
  if (organisationId !== undefined) query = query.where('invitations.organisation_id', '=', organisationId);
  const rows = await query.orderBy('invitations.created_at').orderBy('users.email').execute();
  return rows.map((row) => toInvitation(row, now));
}

export interface NewInvitation {
  id: string;
  organisationId: string;
  userId: string;
  identityId: string;
  flowId: string;
  expiresAt: Date;
  now: Date;
}

export async function insertInvitation(trx: Transaction<UsersDb>, inv: NewInvitation): Promise<void> {
  await trx
    .insertInto('invitations')
    .values({
      id: inv.id,
      organisation_id: inv.organisationId,
      user_id: inv.userId,
      identity_id: inv.identityId,
      state: 'pending',
      recovery_flow_id: inv.flowId,
      expires_at: inv.expiresAt,
      last_sent_at: inv.now,
      accepted_at: null,
      revoked_at: null,
      created_at: inv.now,
    })
    .execute();
  await trx
    .insertInto('invitation_flows')
    .values({ flow_id: inv.flowId, invitation_id: inv.id, issued_at: inv.now, superseded_at: null })
    .execute();
}

/**
 * Points a not-yet-accepted invitation at a new recovery flow: earlier flows are superseded (their
 * links answer `expired`), the state is pending again. False when it was accepted meanwhile.
 */
export async function reissueInvitation(
  trx: Transaction<UsersDb>,
  id: string,
  flowId: string,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  const updated = await trx
    .updateTable('invitations')
    .set((eb) => ({
      state: 'pending',
      recovery_flow_id: flowId,
      expires_at: expiresAt,
      last_sent_at: now,
      send_count: eb('send_count', '+', 1),
      revoked_at: null,
    }))
    .where('id', '=', id)
    .where('state', '!=', 'accepted')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await trx
    .updateTable('invitation_flows')
    .set({ superseded_at: now })
    .where('invitation_id', '=', id)
    .where('superseded_at', 'is', null)
    .execute();
  await trx
    .insertInto('invitation_flows')
    .values({ flow_id: flowId, invitation_id: id, issued_at: now, superseded_at: null })
    .execute();
  return true;
}

/** Revokes a not-yet-accepted invitation (idempotent: keeps the first revocation time). */
export async function markInvitationRevoked(db: Kysely<UsersDb>, id: string, now: Date): Promise<boolean> {
  const updated = await db
    .updateTable('invitations')
    .set((eb) => ({ state: 'revoked', revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('id', '=', id)
    .where('state', '!=', 'accepted')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

export async function findPendingInvitationOfUser(db: Kysely<UsersDb>, userId: string) {
  return db
    .selectFrom('invitations')
    .select(['id', 'identity_id'])
    .where('user_id', '=', userId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
}

export async function markInvitationAccepted(db: Kysely<UsersDb>, id: string, now: Date): Promise<void> {
  await db
    .updateTable('invitations')
    .set({ state: 'accepted', accepted_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/** The state an invitation link (recovery flow id) shows, or null when no invitation issued it. */
export async function stateForFlow(
  db: Kysely<UsersDb>,
  flowId: string,
  now: Date,
): Promise<InvitationState | null> {
  const row = await db
    .selectFrom('invitation_flows')
    .innerJoin('invitations', 'invitations.id', 'invitation_flows.invitation_id')
    .select(['invitation_flows.superseded_at', 'invitations.state', 'invitations.expires_at'])
    .where('invitation_flows.flow_id', '=', flowId)
    .executeTakeFirst();
  if (!row) return null;
  const state = derivedState(row, now);
  // A link replaced by a resend is dead, whatever became of the invitation.
  if (row.superseded_at !== null && state === 'pending') return 'expired';
  return state;
}
