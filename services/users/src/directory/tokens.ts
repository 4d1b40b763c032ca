import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { UsersContext } from '../context.ts';
import { recordEvent, type EventOrigin } from '../events/events.ts';
import { AppError } from '../http/errors.ts';

/** The most live SCIM tokens an organisation holds at once. */
const MAX_LIVE_SCIM_TOKENS = 5;

/**
 * SCIM bearer tokens (issue 26): 256 random bits, shown once at creation, stored as their SHA-256
 * only; per organisation, at most five live ones, revocable. The token never reaches a log or an
 * event: events name the token's id and name.
 */

const TOKEN_PREFIX = 'scim_';
/** Last use is written at most once per this interval (one UPDATE a minute, not one per request). */
const LAST_USED_INTERVAL_MS = 60_000;

function hashScimToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface ScimTokenView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  createdBy: string;
}

export async function listScimTokens(ctx: UsersContext, organisationId: string): Promise<ScimTokenView[]> {
  const rows = await ctx.db
    .selectFrom('scim_tokens')
    .select(['id', 'name', 'created_at', 'last_used_at', 'created_by'])
    .where('organisation_id', '=', organisationId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at).toISOString(),
    createdBy: r.created_by,
  }));
}

/** Whether SCIM is on for the organisation: it holds at least one live token. */
export async function scimEnabled(ctx: UsersContext, organisationId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('scim_tokens')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('revoked_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Creates a token. The organisation's row is locked while the live tokens are counted, so parallel
 * creations never exceed the limit.
 */
export async function createScimToken(
  ctx: UsersContext,
  organisationId: string,
  name: string,
  createdBy: string,
  origin: EventOrigin,
): Promise<{ id: string; name: string; createdAt: string; token: string }> {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = randomUUID();
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('organisations').select('id').where('id', '=', organisationId).forUpdate().execute();
    const live = await trx
      .selectFrom('scim_tokens')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organisation_id', '=', organisationId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(live.n) >= MAX_LIVE_SCIM_TOKENS) {
      throw new AppError(
        'LIMIT_REACHED',
        `An organisation holds at most ${MAX_LIVE_SCIM_TOKENS} SCIM tokens: revoke one first.`,
      );
    }
    await trx
      .insertInto('scim_tokens')
      .values({
        id,
        organisation_id: organisationId,
        name,
        token_hash: hashScimToken(token),
        created_by: createdBy,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    await recordEvent(
      trx,
      origin,
      { organisationId, type: 'scim.token_created', subjectId: null, details: { tokenId: id, name } },
      now,
    );
  });
  return { id, name, createdAt: now.toISOString(), token };
}

/** Revokes a live token of the organisation (404 for another organisation's or a revoked one). */
export async function revokeScimToken(
  ctx: UsersContext,
  organisationId: string,
  tokenId: string,
  origin: EventOrigin,
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const revoked = await trx
      .updateTable('scim_tokens')
      .set({ revoked_at: now })
      .where('id', '=', tokenId)
      .where('organisation_id', '=', organisationId)
      .where('revoked_at', 'is', null)
      .returning('name')
      .executeTakeFirst();
    if (!revoked)
      throw new AppError('SCIM_TOKEN_NOT_FOUND', 'No live SCIM token of this organisation has this id.');
    await recordEvent(
      trx,
      origin,
      {
        organisationId,
        type: 'scim.token_revoked',
        subjectId: null,
        details: { tokenId, name: revoked.name },
      },
      now,
    );
  });
}

/** The live token a SCIM request presents, or null; records its use at most once a minute. */
export async function authenticateScimToken(
  ctx: UsersContext,
  token: string,
): Promise<{ id: string; organisationId: string } | null> {
  const row = await ctx.db
    .selectFrom('scim_tokens')
    .select(['id', 'organisation_id', 'last_used_at'])
    .where('token_hash', '=', hashScimToken(token))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const now = ctx.clock.now();
  if (
    row.last_used_at === null ||
    now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USED_INTERVAL_MS
  ) {
    await ctx.db
      .updateTable('scim_tokens')
      .set({ last_used_at: now })
      .where('id', '=', row.id)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<=', new Date(now.getTime() - LAST_USED_INTERVAL_MS)),
        ]),
      )
      .execute();
  }
  return { id: row.id, organisationId: row.organisation_id };
}
