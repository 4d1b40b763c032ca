import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Session } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import { isUuid } from '../db/db.ts';
import type { SessionRow } from '../db/schema.ts';
import { recordSecurityEvent } from '../db/security-events.ts';
import { errors } from '../errors/identity-error.ts';
import { boolQuery, pageOf, readPage } from '../http/paging.ts';
import { loadIdentity, loadMany, type LoadedIdentity } from '../identities/repo.ts';
import { findSessionById, revokeSession, toApiSession } from './repo.ts';

/**
 * Kratos's admin session routes. Ending a session here is the same write as a logout
 * (`revokeSession` plus a `session.ended` event, in one transaction): the tables' change notices
 * empty every instance's whoami cache, and this instance's cache is emptied before the answer.
 */

const NOT_FOUND = 'The requested session could not be found or is no longer active.';

/** `expand=identity&expand=devices` (Kratos's names, case-insensitive); unknown values are a 400. */
function expandOf(req: FastifyRequest): { identity: boolean; devices: boolean } {
  const raw = [(req.query as Record<string, unknown>).expand].flat().filter((v) => v !== undefined);
  const wants = new Set<string>();
  for (const v of raw) {
    if (typeof v !== 'string') throw errors.badRequest('expand must be identity or devices.');
    for (const part of v.split(',')) wants.add(part.trim().toLowerCase());
  }
  for (const w of wants)
    if (w !== 'identity' && w !== 'devices') throw errors.badRequest('expand must be identity or devices.');
  return { identity: wants.has('identity'), devices: wants.has('devices') };
}

function sessionIdOf(req: FastifyRequest): string {
  const { id } = req.params as { id: string };
  if (!isUuid(id)) throw errors.badRequest('The session id is not a UUID.');
  return id;
}

/** `active` as Kratos reports it to an administrator: ended or past its expiry is inactive. */
function adminSession(
  ctx: IdentityContext,
  row: SessionRow,
  identity: LoadedIdentity,
  expand: { identity: boolean; devices: boolean },
): Session {
  const body = toApiSession({ row, identity }, ctx.config.publicUrl, expand.identity);
  body.active = row.active && row.expires_at > ctx.clock.now();
  if (!expand.devices) delete body.devices;
  return body;
}

export function registerAdminSessionRoutes(app: FastifyInstance, ctx: IdentityContext): void {
  /** One page of sessions (optionally of one identity), each with its identity when asked. */
  async function listSessions(
    req: FastifyRequest,
    reply: Parameters<typeof pageOf>[2],
    url: string,
    identityId: string | undefined,
    expand: { identity: boolean; devices: boolean },
  ): Promise<Session[]> {
    const page = readPage(req.query, isUuid);
    const active = boolQuery(req.query, 'active');
    const now = ctx.clock.now();
    let q = ctx.db
      .selectFrom('identity_sessions')
      .selectAll()
      .orderBy('id')
      .limit(page.size + 1);
    if (identityId) q = q.where('identity_id', '=', identityId);
    if (active === true) q = q.where('active', '=', true).where('expires_at', '>', now);
    if (active === false) q = q.where((eb) => eb.or([eb('active', '=', false), eb('expires_at', '<=', now)]));
    if (page.after) q = q.where('id', '>', page.after);
    const rows = pageOf((await q.execute()) as SessionRow[], page, reply, url, {
      active: active === undefined ? undefined : String(active),
      expand:
        [expand.identity ? 'identity' : '', expand.devices ? 'devices' : ''].filter(Boolean).join(',') ||
        undefined,
    });
    const ids = [...new Set(rows.map((r) => r.identity_id))];
    const identities = new Map<string, LoadedIdentity>();
    if (ids.length > 0) {
      const idRows = await ctx.db
        .selectFrom('identity_identities')
        .selectAll()
        .where('id', 'in', ids)
        .execute();
      for (const li of await loadMany(ctx.db, idRows)) identities.set(li.row.id, li);
    }
    return rows.flatMap((row) => {
      const identity = identities.get(row.identity_id);
      return identity ? [adminSession(ctx, row, identity, expand)] : [];
    });
  }

  app.get('/admin/sessions', async (req, reply) =>
    reply.send(
      await listSessions(req, reply, `${ctx.config.adminUrl}/admin/sessions`, undefined, expandOf(req)),
    ),
  );

  app.get('/admin/identities/:id/sessions', async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!(await loadIdentity(ctx.db, id))) throw errors.notFound();
    const url = `${ctx.config.adminUrl}/admin/identities/${id}/sessions`;
    // As Kratos lists an identity's sessions: with the identity and the devices.
    return reply.send(await listSessions(req, reply, url, id, { identity: true, devices: true }));
  });

  app.get('/admin/sessions/:id', async (req, reply) => {
    const expand = expandOf(req);
    const id = sessionIdOf(req);
    const s = await findSessionById(ctx.db, id, ctx.clock.now());
    if (!s) throw errors.notFound(NOT_FOUND);
    return reply.send(adminSession(ctx, s.row, s.identity, expand));
  });

  app.delete('/admin/sessions/:id', async (req, reply) => {
    const id = sessionIdOf(req);
    const now = ctx.clock.now();
    const found = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('identity_sessions')
        .select(['identity_id', 'active'])
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return false;
      if (row.active) {
        await revokeSession(trx, id, now);
        await recordSecurityEvent(trx, ctx, {
          type: 'session.ended',
          subjectId: row.identity_id,
          actor: { kind: 'operator', id: null },
          details: { scope: 'one' },
          at: now,
        });
      }
      return true;
    });
    if (!found) throw errors.notFound(NOT_FOUND);
    return reply.code(204).send();
  });

  /**
   * Kratos `PATCH /admin/sessions/{id}/extend`: the session lives a full lifespan from now (204).
   * An ended or expired session is not brought back: 404, as Kratos answers.
   */
  app.patch('/admin/sessions/:id/extend', async (req, reply) => {
    const id = sessionIdOf(req);
    const now = ctx.clock.now();
    const r = await ctx.db
      .updateTable('identity_sessions')
      .set({
        expires_at: new Date(now.getTime() + ctx.config.sessionLifespanMs),
        updated_at: now,
      })
      .where('id', '=', id)
      .where('active', '=', true)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw errors.notFound(NOT_FOUND);
    return reply.code(204).send();
  });
}
