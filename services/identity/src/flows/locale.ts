import { chooseLocale, type Locale } from '@acme/i18n';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.ts';
import { currentSession } from '../sessions/current.ts';
import { holdsMessages, localiseMessages } from '../ui/messages.ts';

/**
 * The locale of a request's reader: the signed-in person's `traits.locale`, else the request's
 * `Accept-Language` (bounded and parsed by `chooseLocale`), else English. A session that can not be
 * read counts as none.
 */
async function requestLocale(ctx: IdentityContext, req: FastifyRequest): Promise<Locale> {
  const session = await currentSession(ctx, req).catch(() => undefined);
  const traits = session?.identity.row.traits as { locale?: unknown } | undefined;
  return chooseLocale({ setting: traits?.locale, accept: req.headers['accept-language'] });
}

/** A self-service flow's JSON (the only answers that carry UI messages): an object with `ui`. */
function isFlowBody(payload: unknown): payload is { ui: unknown } {
  return (
    typeof payload === 'object' && payload !== null && !Array.isArray(payload) && Object.hasOwn(payload, 'ui')
  );
}

/**
 * Adds `Accept-Language` to the answer's `Vary` (kept with what is there, such as CORS's `Origin`), so
 * that a shared cache never gives one reader's language to another.
 */
function varyByLanguage(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const names = (Array.isArray(vary) ? vary.join(',') : String(vary ?? '')).split(',').map((n) => n.trim());
  if (names.some((n) => n === '*' || n.toLowerCase() === 'accept-language')) return;
  reply.header('vary', [...names.filter(Boolean), 'Accept-Language'].join(', '));
}

/**
 * Flow messages are stored with what they were made of and drawn in the locale of the request that
 * reads them, just before the answer is serialised (ids, types and context stay as they are; English
 * texts are the stored ones), and the answer says `Vary: Accept-Language`. Only a flow's `ui` is
 * read: stored JSON elsewhere in an answer (an identity's metadata) is never rewritten. The session is
 * looked up only for answers that carry messages.
 */
export function registerMessageLocalisation(app: FastifyInstance, ctx: IdentityContext): void {
  app.addHook('preSerialization', async (req, reply, payload: unknown) => {
    if (!isFlowBody(payload) || !holdsMessages(payload.ui)) return payload;
    varyByLanguage(reply);
    return { ...payload, ui: localiseMessages(payload.ui, await requestLocale(ctx, req)) };
  });
}
