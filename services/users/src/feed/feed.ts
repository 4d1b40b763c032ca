import { createHmac, timingSafeEqual } from 'node:crypto';
import { publishFeed } from '@acme/db/event-feed';
import type { SecurityEvent } from '@acme/users-contract/console';
import type { Kysely, Transaction } from 'kysely';
import type { UsersDb } from '../db-types.ts';

/**
 * The organisation's events feed (issue 35): every event the console's log shows, the user service's
 * own (appended in the transaction that records them) and the identity service's security events
 * (appended by the relay, `identity-relay.ts`), each once, in the order they got their place
 * (`@acme/db/event-feed`: a place is given after commit, so a reader never skips a late commit).
 * The webhooks follow the same feed.
 */

const FEED_TABLES = { events: 'event_feed', counter: 'event_feed_counter' } as const;

/** One event of an organisation as the console lists it, with its organisation. */
export type FeedEvent = SecurityEvent & { organisationId: string };

export async function appendToFeed(
  trx: Transaction<UsersDb> | Kysely<UsersDb>,
  event: FeedEvent,
): Promise<void> {
  await trx
    .insertInto('event_feed')
    .values({
      id: event.id,
      organisation_id: event.organisationId,
      occurred_at: new Date(event.occurredAt),
      type: event.type,
      payload: JSON.stringify(event),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Numbers the events committed since the last call (anyone may call it; one runs at a time). */
export function publishEvents(db: Kysely<UsersDb>): Promise<number> {
  return publishFeed(db, FEED_TABLES);
}

export interface FeedRow {
  seq: bigint;
  event: FeedEvent;
}

/** Events with a place after `after`, in feed order; one organisation's, or every one's. */
export async function readFeed(
  db: Kysely<UsersDb>,
  filter: { organisationId?: string; after: bigint; limit: number },
): Promise<FeedRow[]> {
  let query = db
    .selectFrom('event_feed')
    .select(['feed_seq', 'payload', 'organisation_id'])
    .where('feed_seq', 'is not', null)
    .where('feed_seq', '>', filter.after.toString() as never);
  if (filter.organisationId !== undefined) query = query.where('organisation_id', '=', filter.organisationId);
  const rows = await query.orderBy('feed_seq').limit(filter.limit).execute();
  return rows.map((r) => ({
    seq: BigInt(r.feed_seq!),
    event: { ...(r.payload as unknown as SecurityEvent), organisationId: r.organisation_id },
  }));
}

// The console's cursor: a place in the feed bound to the organisation by an HMAC, so a cursor from
// another organisation, or one edited by hand, is refused (400) rather than read.

const CURSOR = /^(\d{1,19})\.([A-Za-z0-9_-]{22})$/;

function mac(key: string, organisationId: string, seq: bigint): Buffer {
  return createHmac('sha256', `event feed cursor\0${key}`)
    .update(`${organisationId}\0${seq}`)
    .digest()
    .subarray(0, 16);
}

/** The cursor after `seq` in `organisationId`'s feed, sealed with the first key. */
export function feedCursor(keys: readonly string[], organisationId: string, seq: bigint): string {
  return Buffer.from(`${seq}.${mac(keys[0]!, organisationId, seq).toString('base64url')}`).toString(
    'base64url',
  );
}

/** The place a cursor names, or null when it is not a cursor of this organisation's feed. */
export function parseFeedCursor(
  keys: readonly string[],
  organisationId: string,
  cursor: string,
): bigint | null {
  if (cursor.length > 100) return null;
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const seq = BigInt(match[1]!);
  const given = Buffer.from(match[2]!, 'base64url');
  return keys.some((key) => timingSafeEqual(mac(key, organisationId, seq), given)) ? seq : null;
}
