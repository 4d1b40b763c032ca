import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { IdentityError } from '../errors/identity-error.ts';
import { isJsonRequest } from './negotiate.ts';

export function wantsJson(req: FastifyRequest): boolean {
  return isJsonRequest({ accept: req.headers.accept, 'content-type': req.headers['content-type'] });
}

export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).header('cache-control', 'private, no-cache, no-store').send();
}

export function withQuery(base: string, params: Record<string, string>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** The one serializer: JSON clients get the envelope, browsers a 303 to the error UI (`?id=`). */
export async function sendError(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  err: IdentityError,
  browserRedirect: boolean,
) {
  for (const [k, v] of Object.entries(err.init.headers ?? {})) reply.header(k, v);
  if (browserRedirect && !wantsJson(req)) {
    const to = err.init.extra?.redirect_browser_to;
    if (typeof to === 'string') return redirect(reply, to);
    const id = randomUUID();
    const now = ctx.clock.now();
    await ctx.db
      .insertInto('identity_errors')
      .values({ id, error: JSON.stringify(err.content()), created_at: now, updated_at: now })
      .execute();
    return redirect(reply, withQuery(ctx.config.ui.error, { id }));
  }
  return reply.code(err.status).header('cache-control', 'private, no-cache, no-store').send(err.body());
}
