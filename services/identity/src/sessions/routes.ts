import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LogoutFlow } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import { IdentityError, errors, sessionErrors } from '../errors/identity-error.ts';
import { aal2LoginUrl, meetsHighestAal } from './policy.ts';
import { clearSessionCookie, setCsrfCookie } from '../http/cookies.ts';
import { qs } from '../http/query.ts';
import { respond } from '../http/responder.ts';
import { validReturnTo } from '../http/return-to.ts';
import { isUuid, type Db } from '../db/db.ts';
import { recordSecurityEvent } from '../db/security-events.ts';
import { currentSession, currentSessionCached } from './current.ts';
import {
  findSessionByLogoutToken,
  findSessionByToken,
  issueLogoutToken,
  revokeSession,
  toApiSession,
  type ActiveSession,
} from './repo.ts';
import { readJson } from '../http/body.ts';
import { SessionActivity, lastActive } from './activity.ts';

export function registerSessionRoutes(app: FastifyInstance, ctx: IdentityContext): void {
  // The answer is a pure function of the session, so a session served from the cache is serialised
  // once, not on every whoami (JSON building and UTF-8 encoding were a third of a cached whoami's CPU).
  const whoamiBodies = new WeakMap<ActiveSession, Buffer>();
  const whoamiBody = (session: ActiveSession) => {
    let body = whoamiBodies.get(session);
    if (!body) {
      body = Buffer.from(JSON.stringify(toApiSession(session, ctx.config.publicUrl)));
      whoamiBodies.set(session, body);
    }
    return body;
  };

  // "Last active" of each session, written at most once per 5 minutes (sessions/activity.ts).
  const activity = new SessionActivity();

  app.get('/sessions/whoami', async (req, reply) => {
    const session = await currentSessionCached(ctx, req);
    if (!session) throw errors.unauthorized();
    if (!meetsHighestAal(session)) throw sessionErrors.aal2Required(aal2LoginUrl(ctx));
    if (activity.due(session.row.id, ctx.clock.now())) {
      // A session ended meanwhile has no row to refer to: its activity does not matter.
      await activity.touch(ctx.db, session.row.id, ctx.clock.now()).catch(() => undefined);
    }
    return reply
      .header('x-kratos-authenticated-identity-id', session.row.identity_id)
      .header('cache-control', 'private, no-cache, no-store')
      .type('application/json; charset=utf-8')
      .send(whoamiBody(session));
  });

  app.get('/self-service/logout/browser', async (req, reply) => {
    const returnTo = validReturnTo(ctx.config, qs(req.query, 'return_to'));
    const session = await currentSession(ctx, req);
    if (!session) throw errors.unauthorized();
    const token = await issueLogoutToken(ctx.db, session.row.id);
    const url = new URL(`${ctx.config.publicUrl}/self-service/logout`);
    url.searchParams.set('token', token);
    if (returnTo) url.searchParams.set('return_to', returnTo);
    const body: LogoutFlow = { logout_url: url.toString(), logout_token: token };
    return reply.header('cache-control', 'private, no-cache, no-store').send(body);
  });

  app.get('/self-service/logout', { config: { browserErrors: true } }, async (req, reply) => {
    const token = qs(req.query, 'token');
    if (!token) throw errors.badRequest('Please include a token in the URL query.');
    const returnTo = validReturnTo(ctx.config, qs(req.query, 'return_to'));
    const now = ctx.clock.now();
    const session = await findSessionByLogoutToken(ctx.db, token, now);
    if (!session) {
      throw new IdentityError(403, {
        reason:
          'Unable to log out because the logout token in the URL query does not match the session cookie.',
      });
    }
    await ctx.db.transaction().execute(async (trx) => {
      await revokeSession(trx, session.id, now);
      await sessionEnded(ctx, trx, req, session.identity_id, 'logout', now);
    });
    clearSessionCookie(reply, ctx.config);
    setCsrfCookie(reply, ctx.config, randomBytes(32).toString('base64url')); // rotate CSRF, as Kratos does
    return respond(req, reply, {
      type: 'answer',
      status: 204,
      browserTo: returnTo ?? ctx.config.defaultReturnUrl,
    });
  });

  // Session management for the signed-in user (Kratos `GET/DELETE /sessions`, `DELETE /sessions/{id}`).
  app.get('/sessions', async (req, reply) => {
    const session = await currentSession(ctx, req);
    if (!session) throw errors.unauthorized();
    // Listing or ending other sessions needs the highest AAL the identity has (Kratos highest_available).
    if (!meetsHighestAal(session)) throw sessionErrors.aal2Required(aal2LoginUrl(ctx));
    const rows = await ctx.db
      .selectFrom('identity_sessions')
      .selectAll()
      .where('identity_id', '=', session.row.identity_id)
      .where('active', '=', true)
      .where('expires_at', '>', ctx.clock.now())
      .where('id', '<>', session.row.id)
      .orderBy('created_at', 'desc')
      .limit(250)
      .execute();
    const active = await lastActive(
      ctx.db,
      rows.map((r) => r.id),
    );
    // Each device also says when the session was first seen and last active (additions to Kratos's
    // device; last active is at most 5 minutes behind).
    return reply.send(
      rows.map((row) => {
        const api = toApiSession({ row, identity: session.identity }, ctx.config.publicUrl, false);
        const seen = { first_seen_at: row.created_at.toISOString() };
        const last = active.get(row.id);
        const devices = (api.devices ?? []).map((d) => ({
          ...d,
          ...seen,
          last_active_at: (last ?? row.created_at).toISOString(),
        }));
        return { ...api, devices };
      }),
    );
  });

  app.delete('/sessions', async (req, reply) => {
    const session = await currentSession(ctx, req);
    if (!session) throw errors.unauthorized();
    // Listing or ending other sessions needs the highest AAL the identity has (Kratos highest_available).
    if (!meetsHighestAal(session)) throw sessionErrors.aal2Required(aal2LoginUrl(ctx));
    const now = ctx.clock.now();
    const count = await ctx.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('identity_sessions')
        .set({ active: false, updated_at: now })
        .where('identity_id', '=', session.row.identity_id)
        .where('active', '=', true)
        .where('id', '<>', session.row.id)
        .executeTakeFirst();
      const ended = Number(r.numUpdatedRows);
      if (ended > 0)
        await sessionEnded(ctx, trx, req, session.row.identity_id, 'others', now, { count: ended });
      return ended;
    });
    return reply.send({ count });
  });

  app.delete('/sessions/:id', async (req, reply) => {
    const session = await currentSession(ctx, req);
    if (!session) throw errors.unauthorized();
    // Listing or ending other sessions needs the highest AAL the identity has (Kratos highest_available).
    if (!meetsHighestAal(session)) throw sessionErrors.aal2Required(aal2LoginUrl(ctx));
    const { id } = req.params as { id: string };
    if (id === session.row.id)
      throw errors.badRequest('Can not revoke the current session; use the logout flow instead.');
    const now = ctx.clock.now();
    const ended =
      isUuid(id) &&
      (await ctx.db.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('identity_sessions')
          .set({ active: false, updated_at: now })
          .where('id', '=', id)
          .where('identity_id', '=', session.row.identity_id)
          .where('active', '=', true)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
        await sessionEnded(ctx, trx, req, session.row.identity_id, 'one', now);
        return true;
      }));
    if (!ended) throw errors.notFound('The session could not be found.');
    return reply.code(204).send();
  });

  // API clients: `DELETE /self-service/logout/api {session_token}` → 204.
  app.delete('/self-service/logout/api', async (req, reply) => {
    const body = readJson(req) as { session_token?: unknown } | null;
    const token = body && typeof body === 'object' ? body.session_token : undefined;
    if (typeof token !== 'string' || !token) throw errors.badRequest('session_token is required.');
    const now = ctx.clock.now();
    const session = await findSessionByToken(ctx.db, token, now);
    if (!session) throw new IdentityError(403, { reason: 'The session token is not valid.' });
    await ctx.db.transaction().execute(async (trx) => {
      await revokeSession(trx, session.row.id, now);
      await sessionEnded(ctx, trx, req, session.row.identity_id, 'logout', now);
    });
    return reply.code(204).send();
  });

  app.get('/self-service/errors', async (req, reply) => {
    const id = qs(req.query, 'id');
    const row =
      id && isUuid(id)
        ? await ctx.db.selectFrom('identity_errors').selectAll().where('id', '=', id).executeTakeFirst()
        : undefined;
    if (!row) throw errors.notFound('The requested error could not be found.');
    return reply.send({
      id: row.id,
      error: row.error,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    });
  });
}

/** The `session.ended` event of a person ending their own session(s): `scope` says which. */
function sessionEnded(
  ctx: IdentityContext,
  trx: Db,
  req: FastifyRequest,
  identityId: string,
  scope: 'logout' | 'one' | 'others',
  at: Date,
  extra: Record<string, number> = {},
) {
  return recordSecurityEvent(trx, ctx, {
    type: 'session.ended',
    subjectId: identityId,
    client: { ip: req.ip, userAgent: req.headers['user-agent'] ?? '' },
    details: { scope, ...extra },
    at,
  });
}
