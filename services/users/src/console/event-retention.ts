import { deleteInBatches } from '@acme/db/batched-delete';
import type { EventRetention } from '@acme/users-contract/console';
import { sql, type Kysely } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { recordEvent, type EventOrigin } from '../events/events.ts';
import { AppError } from '../http/errors.ts';

const DAY_MS = 86_400_000;

/** The organisation's own event retention and the service's (SECURITY_EVENTS_RETENTION_DAYS) that bounds it. */
export async function readEventRetention(ctx: UsersContext, organisationId: string): Promise<EventRetention> {
  const row = await ctx.db
    .selectFrom('organisations')
    .select('events_retention_days')
    .where('id', '=', organisationId)
    .executeTakeFirst();
  if (!row) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  return {
    organisationId,
    retentionDays: row.events_retention_days,
    serviceRetentionDays: ctx.config.securityEvents.retentionDays,
  };
}

/**
 * Sets how many days the organisation's events are kept (null: the service's). A change is an event
 * of the organisation's log, recorded in the same transaction under the row's lock, so of parallel
 * saves only those that change the value record one.
 */
export async function setEventRetention(
  ctx: UsersContext,
  organisationId: string,
  retentionDays: number | null,
  origin: EventOrigin,
): Promise<void> {
  if (retentionDays !== null && retentionDays > ctx.config.securityEvents.retentionDays) {
    throw new AppError(
      'INVALID_REQUEST',
      `The request is invalid: retentionDays: at most the service's ${ctx.config.securityEvents.retentionDays} days`,
    );
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('organisations')
      .select('events_retention_days')
      .where('id', '=', organisationId)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
    if (before.events_retention_days === retentionDays) return;
    await trx
      .updateTable('organisations')
      .set({ events_retention_days: retentionDays })
      .where('id', '=', organisationId)
      .execute();
    await recordEvent(
      trx,
      origin,
      {
        organisationId,
        type: 'organisation.event_retention_changed',
        subjectId: null,
        details: {
          from: before.events_retention_days === null ? 'default' : String(before.events_retention_days),
          to: retentionDays === null ? 'default' : String(retentionDays),
        },
      },
      now,
    );
  });
}

/**
 * The organisations' own retention: each organisation's events (its log and its feed) older than its
 * own days, in batches of `batchSize` on the (organisation, time) indexes. The service-wide
 * retention runs besides and bounds every organisation's.
 */
export async function deleteOrganisationEvents(
  db: Kysely<UsersDb>,
  now: Date,
  batchSize: number,
): Promise<void> {
  const organisations = await db
    .selectFrom('organisations')
    .select(['id', 'events_retention_days'])
    .where('events_retention_days', 'is not', null)
    .execute();
  for (const { id, events_retention_days: days } of organisations) {
    const cutoff = new Date(now.getTime() - (days ?? 0) * DAY_MS);
    const where = sql`organisation_id = ${id} and occurred_at < ${cutoff}`;
    // Oldest first along the (organisation, time) index, however much of the table is the organisation's.
    const orderBy = sql`organisation_id, occurred_at`;
    await deleteInBatches(db, { table: 'event_feed', where, batchSize, orderBy });
    await deleteInBatches(db, { table: 'security_events', where, batchSize, orderBy });
  }
}
