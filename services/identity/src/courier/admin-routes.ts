import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Message } from '@ory/client';
import type { MailSchema } from '@acme/mail';
import type { IdentityContext } from '../context.ts';
import { isUuid } from '../db/db.ts';
import { errors } from '../errors/identity-error.ts';
import { pageOf, readPage } from '../http/paging.ts';
import { qs } from '../http/query.ts';

/**
 * Kratos's courier API over this service's mail outbox: `GET /admin/courier/messages` (paged,
 * `status` and `recipient` filters) and `GET /admin/courier/messages/{id}`.
 *
 * Kratos's message requires its `body`, so an unsent message's text (which may hold a recovery or
 * verification code) is answered as Kratos answers it; the admin API's guard is the only door to it,
 * as it is to `POST /admin/recovery/code`, which mints codes outright. Once delivered, the outbox
 * keeps no body (the worker empties it), so a sent message answers an empty body.
 *
 * The outbox keeps no template name, so `template_type` is always `stub`; it keeps no dispatch
 * history either, so `send_count` is its attempt count and `dispatches` is absent.
 */

type Row = MailSchema['mail_outbox'] & { attempts: number };
type Status = Message['status'];

const STATUSES = ['queued', 'sent', 'processing', 'abandoned'] as const;

function statusOf(row: Row, now: Date): Status {
  if (row.sent_at) return 'sent';
  // A worker's claim (lease) that has not run out: being sent now.
  if (row.lease_id && row.next_attempt_at > now) return 'processing';
  return 'queued';
}

function toMessage(row: Row, now: Date): Message {
  return {
    id: row.id,
    type: 'email',
    channel: 'email',
    recipient: row.to,
    subject: row.subject,
    body: row.text,
    status: statusOf(row, now),
    template_type: 'stub',
    send_count: row.attempts,
    created_at: row.created_at.toISOString(),
    updated_at: (row.sent_at ?? row.created_at).toISOString(),
  };
}

export function registerCourierRoutes(app: FastifyInstance, ctx: IdentityContext): void {
  // The outbox is @acme/mail's table in the same database (its migrations run with this service's).
  const db = ctx.db as unknown as Kysely<MailSchema>;

  app.get('/admin/courier/messages', async (req, reply) => {
    const page = readPage(req.query, isUuid);
    const status = qs(req.query, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status))
      throw errors.badRequest(`status must be one of ${STATUSES.join(', ')}.`);
    const recipient = qs(req.query, 'recipient');
    const now = ctx.clock.now();
    let q = db
      .selectFrom('mail_outbox')
      .selectAll()
      .orderBy('id')
      .limit(page.size + 1);
    if (recipient !== undefined) q = q.where('to', '=', recipient);
    if (status === 'sent') q = q.where('sent_at', 'is not', null);
    if (status === 'processing')
      q = q.where('sent_at', 'is', null).where('lease_id', 'is not', null).where('next_attempt_at', '>', now);
    if (status === 'queued')
      q = q
        .where('sent_at', 'is', null)
        .where((eb) => eb.or([eb('lease_id', 'is', null), eb('next_attempt_at', '<=', now)]));
    // Nothing is ever abandoned: the outbox retries until delivered.
    if (status === 'abandoned') q = q.where(sql<boolean>`false`);
    if (page.after) q = q.where('id', '>', page.after);
    const rows = pageOf(
      (await q.execute()) as Row[],
      page,
      reply,
      `${ctx.config.adminUrl}/admin/courier/messages`,
      {
        status,
        recipient,
      },
    );
    return reply.send(rows.map((r) => toMessage(r, now)));
  });

  app.get('/admin/courier/messages/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!isUuid(id)) throw errors.badRequest('The message id is not a UUID.');
    const row = await db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound('The requested message could not be found.');
    return reply.send(toMessage(row as Row, ctx.clock.now()));
  });
}
