import {
  compareEventsNewestFirst,
  eventPosition,
  IDENTITY_SECURITY_EVENT_TYPES,
  MAX_EVENT_SUBJECTS_PER_QUERY,
} from '@acme/identity-contract/security-events';
import type { z } from 'zod';
import { getIdentityEvents, identityEventSchema } from '../clients/identity-events.ts';
import type { UsersContext } from '../context.ts';
import { listEvents, type EventFilter, type SecurityEvent } from '../events/events.ts';

/**
 * The console's security event log (issue 24): the user service's own events merged by time with
 * the identity service's (sign-ins, lockouts, 2FA, passwords, sessions), read through its admin API
 * (`GET /admin/security-events`). The identity service knows identities, not organisations: the
 * organisation's members (`users.identity_id`) name the identities to ask for, and each identity
 * event is shown with the member's user id as its subject (and actor, when the person acted).
 */

const IDENTITY_TYPES: ReadonlySet<string> = new Set(IDENTITY_SECURITY_EVENT_TYPES);

/** Identity requests in flight at once for one page (an organisation of 1,000 members needs 10). */
const PARALLEL_REQUESTS = 4;

/** The most events one identity request may answer (the admin API's `page_size` cap). */
const MAX_PAGE = 1000;

type IdentityEvent = z.infer<typeof identityEventSchema>;

/**
 * One page of the merged log, newest first: at most `filter.limit` (≤ 1,000) events after
 * `filter.before`. Each source answers its own newest `limit` after the same position, so the
 * merged first `limit` are exact and the next page continues from the last one shown.
 */
export async function listMergedEvents(ctx: UsersContext, asked: EventFilter): Promise<SecurityEvent[]> {
  if (asked.limit > MAX_PAGE) throw new Error('listMergedEvents: at most 1,000 events per page');
  const filter = await withinRetention(ctx, asked);
  const wantsUsers = filter.type === undefined || !IDENTITY_TYPES.has(filter.type);
  const wantsIdentity = filter.type === undefined || IDENTITY_TYPES.has(filter.type);
  const [own, identity] = await Promise.all([
    wantsUsers ? listEvents(ctx.db, filter) : Promise.resolve([]),
    wantsIdentity ? identityEvents(ctx, filter) : Promise.resolve([]),
  ]);
  return [...own, ...identity].sort(compareEventsNewestFirst).slice(0, filter.limit);
}

/**
 * The filter limited to the organisation's own event retention, if it set one: the identity
 * service's events (sign-ins, lockouts) are kept for the service's retention, and the hourly job
 * deletes the organisation's own only once an hour, so the console shows neither past it.
 */
async function withinRetention(ctx: UsersContext, filter: EventFilter): Promise<EventFilter> {
  const row = await ctx.db
    .selectFrom('organisations')
    .select('events_retention_days')
    .where('id', '=', filter.organisationId)
    .executeTakeFirst();
  if (!row?.events_retention_days) return filter;
  const floor = new Date(ctx.clock.now().getTime() - row.events_retention_days * 86_400_000);
  return filter.from !== undefined && filter.from > floor ? filter : { ...filter, from: floor };
}

/** Up to `max` events in pages of 1,000 (the CSV export). */
export async function listMergedEventsUpTo(
  ctx: UsersContext,
  filter: Omit<EventFilter, 'limit' | 'before'>,
  max: number,
): Promise<SecurityEvent[]> {
  const out: SecurityEvent[] = [];
  let before: EventFilter['before'];
  while (out.length < max) {
    const limit = Math.min(MAX_PAGE, max - out.length);
    const page = await listMergedEvents(ctx, { ...filter, limit, ...(before ? { before } : {}) });
    out.push(...page);
    if (page.length < limit) break;
    const last = page.at(-1)!;
    before = { occurredAt: new Date(last.occurredAt), id: last.id };
  }
  return out;
}

/** The organisation's members with an identity: identity id → user id (one member when filtered). */
async function membersByIdentity(ctx: UsersContext, filter: EventFilter): Promise<Map<string, string>> {
  let query = ctx.db
    .selectFrom('users')
    .select(['id', 'identity_id'])
    .where('organisation_id', '=', filter.organisationId)
    .where('identity_id', 'is not', null);
  if (filter.subjectId !== undefined) query = query.where('id', '=', filter.subjectId);
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.identity_id!.toLowerCase(), r.id]));
}

async function identityEvents(ctx: UsersContext, filter: EventFilter): Promise<SecurityEvent[]> {
  const members = await membersByIdentity(ctx, filter);
  const identities = [...members.keys()];
  const chunks: string[][] = [];
  for (let i = 0; i < identities.length; i += MAX_EVENT_SUBJECTS_PER_QUERY)
    chunks.push(identities.slice(i, i + MAX_EVENT_SUBJECTS_PER_QUERY));
  const found: IdentityEvent[] = [];
  for (let i = 0; i < chunks.length; i += PARALLEL_REQUESTS) {
    const answers = await Promise.all(
      chunks.slice(i, i + PARALLEL_REQUESTS).map((c) => fetchChunk(ctx, c, filter)),
    );
    for (const events of answers) found.push(...events);
  }
  return found.flatMap((e) => {
    const subjectId = members.get(e.subject_id.toLowerCase());
    if (subjectId === undefined) return [];
    const actorId = e.actor_id === null ? null : (members.get(e.actor_id.toLowerCase()) ?? null);
    return [
      {
        id: e.id,
        organisationId: filter.organisationId,
        occurredAt: e.occurred_at,
        type: e.type,
        actorKind: e.actor_kind,
        actorId,
        subjectId,
        ip: e.ip_address,
        userAgent: e.user_agent,
        requestId: e.request_id,
        source: 'identity' as const,
        details: e.details,
      },
    ];
  });
}

async function fetchChunk(
  ctx: UsersContext,
  subjects: string[],
  filter: EventFilter,
): Promise<IdentityEvent[]> {
  const query = new URLSearchParams();
  for (const s of subjects) query.append('subject_id', s);
  if (filter.type !== undefined) query.set('type', filter.type);
  if (filter.from !== undefined) query.set('since', filter.from.toISOString());
  if (filter.to !== undefined) query.set('until', filter.to.toISOString());
  query.set('page_size', String(filter.limit));
  if (filter.before)
    query.set('page_token', eventPosition(filter.before.occurredAt.toISOString(), filter.before.id));
  return getIdentityEvents(ctx.config, query, identityEventSchema);
}
