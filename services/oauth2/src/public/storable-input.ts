import { parse as parseForm } from 'node:querystring';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { refusedInput } from '@acme/service-kit/input';
import { containsUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '@acme/service-kit/text';

/** oidc-provider's own body limit (it answers larger bodies with invalid_request). */
const BODY_LIMIT = 56 * 1024;

function refuse(ctx: Parameters<Middleware>[0], description: string) {
  ctx.status = 400;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: description };
}

async function readAll(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let received = 0;
  // As oidc-provider reads it: stopping early must not destroy the request (the answer is still sent).
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > BODY_LIMIT) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}

/**
 * Refuses, with an OAuth2 `invalid_request`, a query string or a form/JSON body carrying NUL or
 * a lone surrogate, before oidc-provider sees it (it would store such a value in `jsonb` or look
 * it up as an id, and PostgreSQL's refusal would be a 500), or a prototype key (`__proto__`,
 * `constructor`, `prototype`) among its names. A body is read here, checked, and handed to
 * oidc-provider's own reader unchanged.
 */
export function refuseUnstorableInput(): Middleware {
  return async (ctx, next) => {
    const refusedQuery = refusedInput(ctx.query);
    if (refusedQuery) return refuse(ctx, refusedQuery);
    const form = ctx.is('application/x-www-form-urlencoded');
    const json = ctx.is('application/json');
    // A body over the limit is left to oidc-provider, which refuses it from its Content-Length.
    const length = ctx.request.length;
    if ((form || json) && ctx.req.readable && (length === undefined || length <= BODY_LIMIT)) {
      const body = await readAll(ctx.req);
      if (!body) return refuse(ctx, 'The request body is too large.');
      const text = new TextDecoder().decode(body);
      let parsed: unknown = text;
      if (form) parsed = parseForm(text);
      else {
        try {
          parsed = JSON.parse(text);
        } catch {
          // oidc-provider answers malformed JSON itself.
        }
      }
      const refused = containsUnstorableText(text) ? UNSTORABLE_TEXT_MESSAGE : refusedInput(parsed);
      if (refused) return refuse(ctx, refused);
      // Hand the same bytes to oidc-provider's reader, which reads `req` as a stream.
      const replay = Readable.from([body]);
      Object.defineProperty(ctx.req, 'readable', { value: true, configurable: true });
      Object.defineProperty(ctx.req, 'iterator', {
        value: (options?: { destroyOnReturn?: boolean }) => replay.iterator(options),
        configurable: true,
      });
    }
    await next();
  };
}
