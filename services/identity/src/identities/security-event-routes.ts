import { openApi } from '@acme/service-kit/openapi';
import {
  eventPosition,
  IDENTITY_SECURITY_EVENT_TYPES,
  MAX_EVENT_SUBJECTS_PER_QUERY,
  parseEventPosition,
  type IdentitySecurityEventWire,
} from '@acme/identity-contract/security-events';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { IdentityContext } from '../context.ts';
import { isUuid } from '../db/db.ts';
import {
  feedCursor,
  lastSignIn,
  listSecurityEvents,
  parseFeedCursor,
  readSecurityEventFeed,
} from '../db/security-events.ts';
import { errors } from '../errors/identity-error.ts';
import { loadIdentity } from './repo.ts';

const many = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? [] : [v].flat()), z.array(item));

const FeedQuerySchema = z
  .object({
    after: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

const SecurityEventSchema = z.object({
  id: z.string(),
  occurred_at: z.iso.datetime(),
  type: z.enum(IDENTITY_SECURITY_EVENT_TYPES),
  actor_kind: z.enum(['person', 'operator', 'system']),
  actor_id: z.string().nullable(),
  subject_id: z.string(),
  ip_address: z.string().nullable(),
  user_agent: z.string().nullable(),
  request_id: z.string().nullable(),
  details: z.record(z.string(), z.string()),
}) satisfies z.ZodType<IdentitySecurityEventWire>;

const SignInFactsSchema = z.object({
  last_sign_in: z
    .object({ at: z.iso.datetime(), method: z.string(), ip_address: z.string().nullable() })
    .nullable(),
  lockout: z.object({
    locked: z.boolean(),
    locked_until: z.iso.datetime().nullable(),
    failed_attempts: z.number().int(),
  }),
});

const IdentityParamsSchema = z.object({ id: z.string() });

const ListQuerySchema = z.object({
  subject_id: many(z.string().refine(isUuid, 'not a UUID'))
    .refine((ids) => ids.length >= 1, 'at least one subject_id is required')
    .refine(
      (ids) => ids.length <= MAX_EVENT_SUBJECTS_PER_QUERY,
      `at most ${MAX_EVENT_SUBJECTS_PER_QUERY} subject_id`,
    ),
  type: many(z.enum(IDENTITY_SECURITY_EVENT_TYPES)).refine((t) => t.length <= 20),
  since: z.iso.datetime().optional(),
  until: z.iso.datetime().optional(),
  page_size: z.coerce.number().int().min(1).max(1000).default(250),
  page_token: z.string().max(200).optional(),
});

/**
 * The identity service's security events on the admin API (issue 24). Not in Kratos; shaped like
 * its admin lists (`page_size`, `page_token`, a `Link: rel="next"` header, snake_case).
 */
export function registerSecurityEventRoutes(app: FastifyInstance, ctx: IdentityContext): void {
  /**
   * `GET /admin/security-events?subject_id=…[&subject_id=…][&type=…][&since=…][&until=…]`: the events
   * of the named identities (1 to 100), newest first. The user service merges them with its own.
   * The page token is a position in time order (`eventPosition`), so a merged console page can
   * continue here from its own last event.
   */
  app.get(
    '/admin/security-events',
    openApi({
      // Two forms: with subject_id, the named identities' events newest first; without, the feed.
      query: ListQuerySchema.partial().extend(FeedQuerySchema.shape),
      responses: {
        200: {
          description:
            'With `subject_id`: the events, newest first, `Link: rel="next"` naming the next page. Without: the feed after the cursor, oldest first, each event with the `cursor` that follows it.',
          content: {
            'application/json': z.array(SecurityEventSchema.extend({ cursor: z.string().optional() })),
          },
          headers: { link: 'The next page, when there is one.' },
        },
      },
    }),
    async (req, reply) => {
      if ((req.query as Record<string, unknown>).subject_id === undefined) return feedPage(req.query, reply);
      const parsed = ListQuerySchema.safeParse(req.query);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw errors.badRequest(`${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`);
      }
      const q = parsed.data;
      const before = q.page_token === undefined ? undefined : parseEventPosition(q.page_token);
      if (before === null) throw errors.badRequest('page_token: not a page token of this list');
      const rows = await listSecurityEvents(ctx.db, {
        subjectIds: [...new Set(q.subject_id.map((s) => s.toLowerCase()))],
        types: q.type,
        ...(q.since ? { since: new Date(q.since) } : {}),
        ...(q.until ? { until: new Date(q.until) } : {}),
        ...(before ? { before } : {}),
        limit: q.page_size + 1,
      });
      const page = rows.slice(0, q.page_size);
      if (rows.length > q.page_size) {
        const last = page.at(-1)!;
        const next = new URL(`${ctx.config.adminUrl}/admin/security-events`);
        for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
          if (key === 'page_token') continue;
          for (const v of [value].flat()) if (typeof v === 'string') next.searchParams.append(key, v);
        }
        next.searchParams.set('page_token', eventPosition(last.occurred_at, last.id));
        reply.header('link', `<${next.toString()}>; rel="next"`);
      }
      return reply.send(z.array(SecurityEventSchema).parse(page));
    },
  );

  /**
   * `GET /admin/security-events[?after=<cursor>][&limit=]` (no subject_id): every identity's events,
   * oldest first after the cursor, in the order they got their place in the feed, each with the
   * cursor that follows it. The `Link: rel="next"` header names the next call (the same cursor while
   * nothing new has come). An edited cursor, or one this feed has not given, is 400.
   */
  async function feedPage(query: unknown, reply: FastifyReply) {
    const parsed = FeedQuerySchema.safeParse(query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw errors.badRequest(`${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`);
    }
    const { after, limit } = parsed.data;
    const from = after === undefined ? 0n : await parseFeedCursor(ctx.db, after);
    if (from === null) throw errors.badRequest('after: not a cursor of this feed');
    const page = await readSecurityEventFeed(ctx.db, from, limit);
    const next = new URL(`${ctx.config.adminUrl}/admin/security-events`);
    next.searchParams.set('after', page.at(-1)?.cursor ?? after ?? feedCursor(0n));
    next.searchParams.set('limit', String(limit));
    reply.header('link', `<${next.toString()}>; rel="next"`);
    return reply.send(page);
  }

  /**
   * Not in Kratos: what an organisation admin sees of a member's sign-ins: the last successful one
   * (time, method, address) and the password lockout (until when, failures counted). 404 when the
   * identity does not exist.
   */
  app.get(
    '/admin/identities/:id/sign-in',
    openApi({ params: IdentityParamsSchema, responses: { 200: SignInFactsSchema } }),
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const identity = isUuid(id) ? await loadIdentity(ctx.db, id) : undefined;
      if (!identity) throw errors.notFound();
      const identifiers = await ctx.db
        .selectFrom('identity_credential_identifiers')
        .select('identifier')
        .where('identity_id', '=', id)
        .where('type', '=', 'password')
        .execute();
      const throttle = identifiers.length
        ? await ctx.db
            .selectFrom('identity_login_throttle')
            .select(['failures', 'locked_until'])
            .where(
              'identifier',
              'in',
              identifiers.map((i) => i.identifier),
            )
            .orderBy('locked_until', (ob) => ob.desc().nullsLast())
            .executeTakeFirst()
        : undefined;
      const now = ctx.clock.now();
      const lockedUntil = throttle?.locked_until ? new Date(throttle.locked_until) : null;
      const last = await lastSignIn(ctx.db, id);
      return reply.send(
        SignInFactsSchema.parse({
          last_sign_in: last ? { at: last.at.toISOString(), method: last.method, ip_address: last.ip } : null,
          lockout: {
            locked: !!lockedUntil && lockedUntil > now,
            locked_until: lockedUntil && lockedUntil > now ? lockedUntil.toISOString() : null,
            failed_attempts: throttle?.failures ?? 0,
          },
        }),
      );
    },
  );
}
