import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { UsersContext } from '../context.ts';
import type { TermsDocument, UsersDb } from '../db-types.ts';
import type { Acceptance } from './schemas.ts';

export interface AcceptanceRecord {
  userId: string;
  document: TermsDocument;
  version: string;
  acceptedAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  source: 'user' | 'operator';
}

export async function insertAcceptances(db: Kysely<UsersDb>, records: AcceptanceRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db
    .insertInto('terms_acceptances')
    .values(
      records.map((r) => ({
        id: randomUUID(),
        user_id: r.userId,
        document: r.document,
        version: r.version,
        accepted_at: r.acceptedAt,
        ip_address: r.ipAddress,
        user_agent: r.userAgent,
        source: r.source,
      })),
    )
    .execute();
}

/** Whether the user has accepted the configured current version of both documents. */
export async function hasAcceptedCurrent(
  db: Kysely<UsersDb>,
  userId: string,
  config: Config,
): Promise<boolean> {
  const rows = await db
    .selectFrom('terms_acceptances')
    .select('document')
    .distinct()
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.or([
        eb.and([eb('document', '=', 'terms'), eb('version', '=', config.terms.version)]),
        eb.and([eb('document', '=', 'privacy'), eb('version', '=', config.privacy.version)]),
      ]),
    )
    .execute();
  return rows.length === 2;
}

/** Whether the user has ever accepted both documents (in any version, by themselves or through the operator). */
export async function hasEverAccepted(db: Kysely<UsersDb>, userId: string): Promise<boolean> {
  const rows = await db
    .selectFrom('terms_acceptances')
    .select('document')
    .distinct()
    .where('user_id', '=', userId)
    .execute();
  return rows.length === 2;
}

export async function listAcceptances(
  db: Kysely<UsersDb>,
  organisationId: string | undefined,
): Promise<Acceptance[]> {
  let query = db
    .selectFrom('terms_acceptances as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id as id',
      't.user_id as userId',
      'u.email as email',
      'u.organisation_id as organisationId',
      't.document as document',
      't.version as version',
      't.accepted_at as acceptedAt',
      't.ip_address as ipAddress',
      't.user_agent as userAgent',
      't.source as source',
    ]);
  if (organisationId !== undefined) query = query.where('u.organisation_id', '=', organisationId);
  const rows = await query.orderBy('t.accepted_at').orderBy('u.email').orderBy('t.document').execute();
  return rows.map((r) => ({ ...r, acceptedAt: r.acceptedAt.toISOString() }));
}

/** Users an operator creates with a password skip onboarding: their acceptance is recorded as the operator's. */
export async function recordOperatorAcceptance(ctx: UsersContext, userId: string, at: Date): Promise<void> {
  await insertAcceptances(ctx.db, [
    operatorRecord(userId, 'terms', ctx.config.terms.version, at),
    operatorRecord(userId, 'privacy', ctx.config.privacy.version, at),
  ]);
}

function operatorRecord(userId: string, document: TermsDocument, version: string, at: Date) {
  return {
    userId,
    document,
    version,
    acceptedAt: at,
    ipAddress: null,
    userAgent: null,
    source: 'operator' as const,
  };
}
