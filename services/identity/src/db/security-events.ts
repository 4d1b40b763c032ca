import { randomBytes } from 'node:crypto';
import type {
  IdentitySecurityEventType,
  IdentitySecurityEventWire,
  SecurityEventActorKind,
} from '@acme/identity-contract/security-events';
import { deleteOlderInBatches, olderThan, type EventLogPosition } from '@acme/db/event-log';
import { currentRequestId } from '@acme/service-kit/request-id';
import { feedHead, publishFeed } from '@acme/db/event-feed';
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config.ts';
import type { IdentityDb } from './schema.ts';

type Db = Kysely<IdentityDb>;

/** One event to record. `details` hold names and values (method, reason), never a secret, code or token. */
export interface SecurityEventInput {
  type: IdentitySecurityEventType;
  /** The identity the event concerns. */
  subjectId: string;
  /** Who acted; default: the subject themselves (`person`). */
  actor?: { kind: SecurityEventActorKind; id: string | null };
  /** The client's address and user agent, when a person's request caused it. */
  client?: { ip: string; userAgent: string } | undefined;
  details?: Record<string, string | number | boolean>;
  at: Date;
}

/**
 * The subject of events about no existing identity (a failed sign-in with an unknown address): the
 * nil UUID, which no identity has, so no organisation's console ever lists them.
 */
export const NO_IDENTITY = '00000000-0000-0000-0000-000000000000';

const MAX_DETAIL = 200;
const MAX_USER_AGENT = 512;

/**
 * Records one security event (issue 24) with the request id of the request being handled, so it
 * joins the JSON logs' `requestId`. Pass the transaction of the change it records: the event commits
 * with the change, or neither does. The one writer of the identity service's events: the
 * strategies, the flow kinds and the admin routes call it, and so will the passkey strategy
 * (`passkey.added` / `passkey.removed`). Does nothing when `IDENTITY_SECURITY_EVENTS=off` (the
 * write-cost bench only; refused in production).
 */
export async function recordSecurityEvent(
  db: Db,
  service: { config: Pick<Config, 'securityEvents'> },
  event: SecurityEventInput,
): Promise<void> {
  await securityEventInsert(db, service, event)?.execute();
}

/**
 * The insert of one security event, not run yet (null when the log is off): a caller may make it
 * part of another statement (the session a sign-in creates and its event are one statement).
 */
export function securityEventInsert(
  db: Db,
  service: { config: Pick<Config, 'securityEvents'> },
  event: SecurityEventInput,
) {
  if (!service.config.securityEvents.enabled) return null;
  const actor = event.actor ?? { kind: 'person', id: event.subjectId };
  const details = Object.fromEntries(
    Object.entries(event.details ?? {}).map(([k, v]) => [k.slice(0, 64), String(v).slice(0, MAX_DETAIL)]),
  );
  return db
    .insertInto('identity_security_events')
    .values({
      id: timeOrderedId(),
      occurred_at: event.at,
      type: event.type,
      actor_kind: actor.kind,
      actor_id: actor.id,
      subject_id: event.subjectId,
      ip: event.client?.ip.slice(0, 64) || null,
      user_agent: event.client?.userAgent.slice(0, MAX_USER_AGENT) || null,
      request_id: currentRequestId() ?? null,
      details: JSON.stringify(details),
    })
    .returning('id');
}

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7 (RFC 9562): milliseconds first, then a counter within the millisecond. Events that share
 * a time (a failure and the lockout it starts) list in the order they were written, since the
 * order is (time, id).
 */
function timeOrderedId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    ms = lastMs;
    sequence += 1;
    if (sequence > 0xfff) {
      ms += 1;
      sequence = 0;
    }
  } else sequence = 0;
  lastMs = ms;
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface SecurityEventQuery {
  /** Only these identities' events (at least one). */
  subjectIds: string[];
  types?: string[];
  since?: Date;
  until?: Date;
  /** Keyset paging: events strictly after this position in the newest-first order. */
  before?: EventLogPosition;
  limit: number;
}

const SECURITY_EVENT_FEED = {
  events: 'identity_security_events',
  counter: 'identity_security_event_feed_counter',
} as const;

/** The feed's cursor after place `seq`: opaque to callers. */
export function feedCursor(seq: bigint): string {
  return Buffer.from(`security-events:${seq}`).toString('base64url');
}

/** The place a cursor names, or null when it is none this feed has given (edited, or beyond its head). */
export async function parseFeedCursor(db: Db, cursor: string): Promise<bigint | null> {
  if (cursor.length > 100) return null;
  const match = /^security-events:(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const seq = BigInt(match[1]!);
  return seq <= (await feedHead(db, SECURITY_EVENT_FEED)) ? seq : null;
}

/**
 * Every identity's events after place `after` of the feed, in feed order, each with its cursor
 * (issue 35: the operator's SIEM and the user service's relay follow it).
 */
export async function readSecurityEventFeed(
  db: Db,
  after: bigint,
  limit: number,
): Promise<(IdentitySecurityEventWire & { cursor: string })[]> {
  await publishFeed(db, SECURITY_EVENT_FEED);
  const rows = await db
    .selectFrom('identity_security_events')
    .selectAll()
    .where('feed_seq', 'is not', null)
    .where('feed_seq', '>', after.toString() as never)
    .orderBy('feed_seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...toWire(r), cursor: feedCursor(BigInt(r.feed_seq!)) }));
}

function toWire(r: Selectable<IdentityDb['identity_security_events']>): IdentitySecurityEventWire {
  return {
    id: r.id,
    occurred_at: new Date(r.occurred_at).toISOString(),
    type: r.type as IdentitySecurityEventType,
    actor_kind: r.actor_kind as SecurityEventActorKind,
    actor_id: r.actor_id,
    subject_id: r.subject_id,
    ip_address: r.ip,
    user_agent: r.user_agent,
    request_id: r.request_id,
    details: r.details,
  };
}

/** Events newest first (time, then id), through the (subject, time) index. */
export async function listSecurityEvents(
  db: Db,
  q: SecurityEventQuery,
): Promise<IdentitySecurityEventWire[]> {
  let query = db.selectFrom('identity_security_events').selectAll().where('subject_id', 'in', q.subjectIds);
  if (q.types?.length) query = query.where('type', 'in', q.types);
  if (q.since) query = query.where('occurred_at', '>=', q.since);
  if (q.until) query = query.where('occurred_at', '<', q.until);
  if (q.before) query = query.where(olderThan(q.before));
  const rows = await query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map(toWire);
}

/** The identity's latest successful sign-in, or undefined. */
export async function lastSignIn(
  db: Db,
  subjectId: string,
): Promise<{ at: Date; method: string; ip: string | null } | undefined> {
  const row = await db
    .selectFrom('identity_security_events')
    .select(['occurred_at', 'details', 'ip'])
    .where('subject_id', '=', subjectId)
    .where('type', '=', 'signin.succeeded')
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return { at: new Date(row.occurred_at), method: row.details.method ?? 'unknown', ip: row.ip };
}

/**
 * Retention: deletes events older than `retentionDays`, `batchSize` rows per statement, each its
 * own short transaction, so a writer never waits behind one long delete. Returns how many went.
 */
export async function deleteExpiredSecurityEvents(
  db: Db,
  now: Date,
  retentionDays: number,
  batchSize: number,
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  return deleteOlderInBatches(db, 'identity_security_events', cutoff, batchSize);
}
