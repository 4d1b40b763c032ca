import { randomUUID } from 'node:crypto';
import { deleteOlderInBatches, olderThan, type EventLogPosition } from '@acme/db/event-log';
import { currentRequestId } from '@acme/service-kit/request-id';
import type { Kysely, Transaction } from 'kysely';
import type { UsersDb } from '../db-types.ts';
import { appendToFeed } from '../feed/feed.ts';
import { eventPosition, parseEventPosition } from '@acme/identity-contract/security-events';
import type {
  SecurityEvent as WireSecurityEvent,
  USERS_SECURITY_EVENT_TYPES,
} from '@acme/users-contract/console';

/**
 * The user service's security event log (issue 24): what changed in an organisation, who did it,
 * to whom, from where. Written in the same transaction as the change it records. Details hold
 * names and values such as roles, never a secret, code or token.
 */
/** The types this service writes (the console also lists the identity service's; see the contract). */
export type SecurityEventType = (typeof USERS_SECURITY_EVENT_TYPES)[number];

/** `directory`: a SCIM client (issue 26), named by its token's id. */
type ActorKind = 'person' | 'operator' | 'system' | 'directory';

/** Who caused an event and from where (the request id matches the JSON logs' `reqId`). */
export interface EventOrigin {
  actorKind: ActorKind;
  actorId: string | null;
  ip: string | null;
  requestId: string | null;
}

/** A change the operator made through the admin API or CLI (on behalf of `actorId` when named). */
export function operatorOrigin(actorId: string | null = null): EventOrigin {
  return { actorKind: 'operator', actorId, ip: null, requestId: currentRequestId() ?? null };
}

/** A change the service made on its own (a scheduled job). */
export function systemOrigin(): EventOrigin {
  return { actorKind: 'system', actorId: null, ip: null, requestId: null };
}

/** A change a person made for themselves (e.g. accepting an invitation). */
export function personOrigin(actorId: string, ip: string | null): EventOrigin {
  return { actorKind: 'person', actorId, ip, requestId: currentRequestId() ?? null };
}

export interface NewSecurityEvent {
  organisationId: string;
  type: SecurityEventType;
  subjectId: string | null;
  details?: Record<string, string>;
}

export interface SecurityEvent extends WireSecurityEvent {
  organisationId: string;
}

export async function recordEvent(
  trx: Transaction<UsersDb> | Kysely<UsersDb>,
  origin: EventOrigin,
  event: NewSecurityEvent,
  now: Date,
): Promise<void> {
  const id = randomUUID();
  const details = event.details ?? {};
  const write = async (t: Transaction<UsersDb> | Kysely<UsersDb>) => {
    await t
      .insertInto('security_events')
      .values({
        id,
        organisation_id: event.organisationId,
        occurred_at: now,
        type: event.type,
        actor_kind: origin.actorKind,
        actor_id: origin.actorId,
        subject_id: event.subjectId,
        ip: origin.ip,
        request_id: origin.requestId,
        details: JSON.stringify(details),
      })
      .execute();
    // The organisation's feed and its webhooks' outbox (issue 35): committed with the event, or not at all.
    await appendToFeed(t, {
      id,
      organisationId: event.organisationId,
      occurredAt: now.toISOString(),
      type: event.type,
      actorKind: origin.actorKind,
      actorId: origin.actorId,
      subjectId: event.subjectId,
      ip: origin.ip,
      userAgent: null,
      requestId: origin.requestId,
      source: 'users',
      details,
    });
  };
  if (trx.isTransaction) await write(trx);
  else await trx.transaction().execute(write);
}

export interface EventFilter {
  organisationId: string;
  subjectId?: string;
  type?: string;
  from?: Date;
  to?: Date;
  /** Keyset paging: the `cursor` of the last page's last event. */
  before?: EventLogPosition;
  limit: number;
}

/** Events newest first; keyset paging keeps a deep page as cheap as the first (index-backed). */
export async function listEvents(db: Kysely<UsersDb>, filter: EventFilter): Promise<SecurityEvent[]> {
  let query = db
    .selectFrom('security_events')
    .selectAll()
    .where('organisation_id', '=', filter.organisationId);
  if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.from !== undefined) query = query.where('occurred_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('occurred_at', '<', filter.to);
  if (filter.before !== undefined) query = query.where(olderThan(filter.before));
  const rows = await query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    organisationId: r.organisation_id,
    occurredAt: new Date(r.occurred_at).toISOString(),
    type: r.type,
    actorKind: r.actor_kind,
    actorId: r.actor_id,
    subjectId: r.subject_id,
    ip: r.ip,
    userAgent: null,
    requestId: r.request_id,
    source: 'users',
    details: r.details,
  }));
}

/** An opaque cursor for the page after `event` (the identity service's admin API reads it too). */
export function cursorOf(event: Pick<SecurityEvent, 'occurredAt' | 'id'>): string {
  return eventPosition(event.occurredAt, event.id);
}

export const parseCursor = parseEventPosition;

/**
 * Retention: deletes events older than `retentionDays`, `batchSize` at a time, each batch its own
 * short statement so writers are never blocked behind one long delete. Returns how many went.
 */
export async function deleteExpiredEvents(
  db: Kysely<UsersDb>,
  now: Date,
  retentionDays: number,
  batchSize: number,
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  // The feed keeps what the log keeps (its count is the log's: the same events, and relayed ones).
  await deleteOlderInBatches(db, 'event_feed', cutoff, batchSize);
  return deleteOlderInBatches(db, 'security_events', cutoff, batchSize);
}
