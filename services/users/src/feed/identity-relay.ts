import { z } from 'zod';
import { getIdentityEvents, identityEventSchema } from '../clients/identity-events.ts';
import type { UsersContext } from '../context.ts';
import { appendToFeed } from './feed.ts';

/**
 * The relay of the identity service's security events into the organisations' feeds (issue 35).
 * It follows the identity service's cursor feed (`GET /admin/security-events?after=`), which lists
 * every identity's events; each event whose subject is a member of an organisation is appended to
 * that organisation's feed with the member's user id as its subject (as the console's log shows
 * it). Events about identities that are nobody's member are passed over.
 *
 * Where the relay has got to is kept in `feed_followers` ('identity'). Two instances may run it at
 * once: each reads the same page, and only the one whose position is still the one it read commits
 * (the other's transaction finds it moved and rolls back); an event appended twice is kept once.
 */

const RELAY_PAGE = 500;

const eventSchema = identityEventSchema.extend({ id: z.uuid(), cursor: z.string() });

const FOLLOWER = 'identity';

class PositionMoved extends Error {}

/** Relays one page; returns how many identity events it read (0: caught up). */
export async function relayIdentityEvents(ctx: UsersContext): Promise<number> {
  const { position } = await ctx.db
    .selectFrom('feed_followers')
    .select('position')
    .where('name', '=', FOLLOWER)
    .executeTakeFirstOrThrow();
  const query = new URLSearchParams({ limit: String(RELAY_PAGE) });
  if (position !== '') query.set('after', position);
  const events = await getIdentityEvents(ctx.config, query, eventSchema);
  if (events.length === 0) return 0;
  const identities = [...new Set(events.flatMap((e) => [e.subject_id, e.actor_id ?? []].flat()))].map((i) =>
    i.toLowerCase(),
  );
  const members = await ctx.db
    .selectFrom('users')
    .select(['id', 'identity_id', 'organisation_id'])
    .where('identity_id', 'in', identities)
    .execute();
  const byIdentity = new Map(members.map((m) => [m.identity_id!.toLowerCase(), m]));
  try {
    await ctx.db.transaction().execute(async (trx) => {
      for (const e of events) {
        const subject = byIdentity.get(e.subject_id.toLowerCase());
        if (!subject) continue;
        const actor = e.actor_id === null ? undefined : byIdentity.get(e.actor_id.toLowerCase());
        await appendToFeed(trx, {
          id: e.id,
          organisationId: subject.organisation_id,
          occurredAt: e.occurred_at,
          type: e.type,
          actorKind: e.actor_kind,
          actorId: actor?.id ?? null,
          subjectId: subject.id,
          ip: e.ip_address,
          userAgent: e.user_agent,
          requestId: e.request_id,
          source: 'identity',
          details: e.details,
        });
      }
      const moved = await trx
        .updateTable('feed_followers')
        .set({ position: events.at(-1)!.cursor })
        .where('name', '=', FOLLOWER)
        .where('position', '=', position)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new PositionMoved();
    });
  } catch (error) {
    if (error instanceof PositionMoved) return 0;
    throw error;
  }
  return events.length;
}
