import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.ts';
import { IdentityError, errors } from '../errors/identity-error.ts';
import type { Reply } from '../flows/outcome.ts';
import { isJsonRequest } from './negotiate.ts';
import { withQuery } from './url.ts';

/**
 * The one place that decides between a browser and a JSON client (Kratos's `x.IsJSONRequest`):
 * every route hands its `Reply` (or thrown `IdentityError`) here.
 */
function wantsJson(req: FastifyRequest): boolean {
  return isJsonRequest({ accept: req.headers.accept, 'content-type': req.headers['content-type'] });
}

/** A 303 that no cache keeps (used for every browser redirect). */
export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).header('cache-control', 'private, no-cache, no-store').send();
}

/**
 * Writes a reply: browsers get a 303 (`answer.browserTo`, the location change, or the error's
 * `browserTo`); JSON clients the body, 422 `browser_location_change_required`, or the envelope.
 * Errors are thrown to the error handler (`sendError`), which knows whether the route sends
 * browsers to the error page.
 */
export function respond(req: FastifyRequest, reply: FastifyReply, r: Reply): FastifyReply {
  const json = wantsJson(req);
  switch (r.type) {
    case 'answer':
      if (r.browserTo !== undefined && !json) return redirect(reply, r.browserTo);
      return r.body === undefined ? reply.code(r.status).send() : reply.code(r.status).send(r.body);
    case 'location_change':
      if (!json) return redirect(reply, r.to);
      throw errors.browserLocationChange(r.to);
    case 'error':
      if (r.browserTo !== undefined && !json) return redirect(reply, r.browserTo);
      throw r.error;
  }
}

/** The one error serialiser: JSON clients get the envelope, browsers a 303 to the error UI (`?id=`). */
export async function sendError(
  ctx: IdentityContext,
  req: FastifyRequest,
  reply: FastifyReply,
  err: IdentityError,
  browserRedirect: boolean,
) {
  for (const [k, v] of Object.entries(err.init.headers ?? {})) reply.header(k, v);
  // Overload answers at once, to browsers too: no error record is written while at capacity.
  if (browserRedirect && err.status !== 503 && !wantsJson(req)) {
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
