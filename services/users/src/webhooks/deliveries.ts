import { eventPosition, parseEventPosition } from '@acme/identity-contract/security-events';
import type {
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryPageQuery,
  WebhookEventType,
} from '@acme/users-contract/webhooks';
import type { Selectable } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { RETRY_WINDOW_MS } from './worker.ts';

type DeliveryRow = Selectable<UsersDb['webhook_deliveries']>;

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

function toWireDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type as WebhookEventType,
    status: row.status,
    attempts: row.attempts,
    lastResponseStatus: row.last_response_status,
    lastError: row.last_error,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: iso(row.next_attempt_at),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** An endpoint's deliveries, newest first, paged by an opaque cursor (the last one's time and id). */
export async function listDeliveries(
  ctx: UsersContext,
  endpointId: string,
  page: WebhookDeliveryPageQuery,
): Promise<WebhookDeliveryPage> {
  let query = ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (page.after !== undefined) {
    const before = parseEventPosition(page.after);
    if (!before) throw new AppError('INVALID_REQUEST', 'The request is invalid: after: not a page cursor');
    query = query.where(({ eb }) =>
      eb.or([
        eb('created_at', '<', before.occurredAt),
        eb.and([eb('created_at', '=', before.occurredAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    deliveries: shown.map(toWireDelivery),
    next:
      rows.length > page.limit && last
        ? eventPosition(new Date(last.created_at).toISOString(), last.id)
        : null,
  };
}

/** Queues a delivery again now, with a new 24-hour retry window (the same event id and body). */
export async function redeliver(
  ctx: UsersContext,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const now = ctx.clock.now();
  const row = await ctx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, retry_until: new Date(now.getTime() + RETRY_WINDOW_MS) })
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError('WEBHOOK_NOT_FOUND', 'No delivery of this endpoint has this id.');
  return toWireDelivery(row);
}
