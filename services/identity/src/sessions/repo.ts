import { randomUUID } from 'node:crypto';
import type { Session } from '@ory/client';
import type { AuthMethod, SessionRow } from '../db/schema.ts';
import { sql, type Compilable } from 'kysely';
import {
  identityFromJson,
  identityJsonColumns,
  toApiIdentity,
  type LoadedIdentity,
} from '../identities/repo.ts';
import type { Db } from '../db/db.ts';
import { computeAal } from './aal.ts';
import { newToken, sha256Hex } from './tokens.ts';

export interface ActiveSession {
  row: SessionRow;
  identity: LoadedIdentity;
}

interface NewSession {
  identityId: string;
  methods: AuthMethod[];
  now: Date;
  lifespanMs: number;
  ip: string;
  userAgent: string;
  authenticatedAt?: Date;
}

function newSession(opts: NewSession): { token: string; row: SessionRow } {
  const token = newToken('ory_st_');
  const row: SessionRow = {
    id: randomUUID(),
    token_hash: sha256Hex(token),
    logout_token_hash: null,
    identity_id: opts.identityId,
    active: true,
    aal: computeAal(opts.methods),
    authentication_methods: opts.methods,
    authenticated_at: opts.authenticatedAt ?? opts.now,
    issued_at: opts.now,
    expires_at: new Date(opts.now.getTime() + opts.lifespanMs),
    devices: [
      { id: randomUUID(), ip_address: opts.ip, user_agent: opts.userAgent.slice(0, 512), location: '' },
    ],
    created_at: opts.now,
    updated_at: opts.now,
  };
  return { token, row };
}

const insertSession = (db: Db, row: SessionRow) =>
  db.insertInto('identity_sessions').values({
    ...row,
    authentication_methods: JSON.stringify(row.authentication_methods),
    devices: JSON.stringify(row.devices),
  });

export async function createSession(db: Db, opts: NewSession): Promise<{ token: string; row: SessionRow }> {
  const created = newSession(opts);
  await insertSession(db, created.row).execute();
  return created;
}

/**
 * `createSession`, also loading the session's identity (addresses, credential types), in one
 * statement: the insert runs as a data-modifying CTE beside the identity's select.
 */
export async function createSessionLoadingIdentity(
  db: Db,
  opts: NewSession,
  /** Another insert made part of the same statement (the sign-in's security event), or null. */
  also: Compilable | null = null,
): Promise<{ token: string; row: SessionRow; identity: LoadedIdentity }> {
  const created = newSession(opts);
  const alsoClause = also ? sql`, also_written as (${also})` : sql``;
  const r = await sql<{ identity: unknown; verifiable: unknown; recovery: unknown; credentials: unknown }>`
    with created as (${insertSession(db, created.row)})${alsoClause}
    select ${identityJsonColumns('i')} from identity_identities i where i.id = ${opts.identityId}`.execute(
    db,
  );
  if (!r.rows[0]) throw new Error('the identity of a new session was not found');
  return { ...created, identity: identityFromJson(r.rows[0]) };
}

/** One round trip: the session joined with its identity, addresses and credential types (no identifiers). */
async function selectActive(
  db: Db,
  where: ReturnType<typeof sql>,
  now: Date,
): Promise<ActiveSession | undefined> {
  const r = await sql<
    SessionRow & { identity: unknown; verifiable: unknown; recovery: unknown; credentials: unknown }
  >`
    select s.*, ${identityJsonColumns('i', { identifiers: false })}
    from identity_sessions s join identity_identities i on i.id = s.identity_id
    where ${where} and s.active = true and s.expires_at > ${now}`.execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  const { identity, verifiable, recovery, credentials, ...session } = row;
  return {
    row: session as SessionRow,
    identity: identityFromJson({ identity, verifiable, recovery, credentials }),
  };
}

/** The active, unexpired session for a token, with an active identity; else undefined. */
export async function findSessionByToken(
  db: Db,
  token: string,
  now: Date,
): Promise<ActiveSession | undefined> {
  if (!token || token.length > 256) return undefined;
  const s = await selectActive(db, sql`s.token_hash = ${sha256Hex(token)}`, now);
  return s && s.identity.row.state === 'active' ? s : undefined;
}

export async function findSessionById(db: Db, id: string, now: Date): Promise<ActiveSession | undefined> {
  return selectActive(db, sql`s.id = ${id}`, now);
}

export async function revokeSession(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('identity_sessions')
    .set({ active: false, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function revokeIdentitySessions(db: Db, identityId: string, now: Date): Promise<void> {
  await db
    .updateTable('identity_sessions')
    .set({ active: false, updated_at: now })
    .where('identity_id', '=', identityId)
    .where('active', '=', true)
    .execute();
}

/**
 * Ends every active session of the identity except `keepId` (the one that changed the password):
 * a stolen session must not survive the owner's password change. The authorization server ends
 * each ended session's grants at their next refresh.
 */
export async function revokeOtherSessions(
  db: Db,
  identityId: string,
  keepId: string,
  now: Date,
): Promise<number> {
  const r = await db
    .updateTable('identity_sessions')
    .set({ active: false, updated_at: now })
    .where('identity_id', '=', identityId)
    .where('active', '=', true)
    .where('id', '!=', keepId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Gives the session a new token and answers it; the old token stops working at once. Used when the
 * session's assurance level rises, so a token captured before the second factor is worth nothing.
 */
export async function rotateSessionToken(db: Db, sessionId: string, now: Date): Promise<string> {
  const token = newToken('ory_st_');
  await db
    .updateTable('identity_sessions')
    .set({ token_hash: sha256Hex(token), updated_at: now })
    .where('id', '=', sessionId)
    .execute();
  return token;
}

/** Issues a logout token for the session (replacing any earlier one). */
export async function issueLogoutToken(db: Db, sessionId: string): Promise<string> {
  const token = newToken('ory_lo_');
  await db
    .updateTable('identity_sessions')
    .set({ logout_token_hash: sha256Hex(token) })
    .where('id', '=', sessionId)
    .execute();
  return token;
}

export async function findSessionByLogoutToken(db: Db, token: string, now: Date) {
  if (!token || token.length > 256) return undefined;
  return db
    .selectFrom('identity_sessions')
    .selectAll()
    .where('logout_token_hash', '=', sha256Hex(token))
    .where('active', '=', true)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export function toApiSession(s: ActiveSession, publicUrl: string, withIdentity = true): Session {
  const { row } = s;
  return {
    id: row.id,
    active: row.active,
    expires_at: row.expires_at.toISOString(),
    authenticated_at: row.authenticated_at.toISOString(),
    authenticator_assurance_level: row.aal as Session['authenticator_assurance_level'],
    authentication_methods: row.authentication_methods as Session['authentication_methods'],
    issued_at: row.issued_at.toISOString(),
    ...(withIdentity ? { identity: toApiIdentity(s.identity, publicUrl, false) } : {}),
    devices: row.devices,
  };
}
