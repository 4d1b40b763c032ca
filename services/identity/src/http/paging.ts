import type { FastifyReply } from 'fastify';
import { errors } from '../errors/identity-error.ts';
import { qs } from './query.ts';

/**
 * Kratos's keyset pages for the admin lists: `page_size` (1 to `max`, default 250) and an opaque
 * `page_token` (here the last id of the previous page); anything else is a 400. The next
 * page is announced in a `Link: <…>; rel="next"` header; the last page has none.
 */
export interface Page {
  size: number;
  after: string | undefined;
}

/** `isToken` says whether a `page_token` is one this list hands out (here: an id). */
export function readPage(query: unknown, isToken: (token: string) => boolean, max = 1000): Page {
  const raw = qs(query, 'page_size') ?? '250';
  const size = /^\d{1,4}$/.test(raw) ? Number(raw) : 0;
  if (size < 1 || size > max) throw errors.badRequest(`page_size must be an integer from 1 to ${max}.`);
  const after = qs(query, 'page_token');
  if (after !== undefined && !isToken(after)) throw errors.badRequest('The page token is invalid.');
  return { size, after };
}

/** Keeps the first `page.size` rows and sets the next-page link when there were more. */
export function pageOf<T extends { id: string }>(
  rows: T[],
  page: Page,
  reply: FastifyReply,
  url: string,
  keep: Record<string, string | undefined> = {},
): T[] {
  const kept = rows.slice(0, page.size);
  if (rows.length > page.size) {
    const next = new URL(url);
    for (const [k, v] of Object.entries(keep)) if (v !== undefined) next.searchParams.set(k, v);
    next.searchParams.set('page_size', String(page.size));
    next.searchParams.set('page_token', kept[kept.length - 1]!.id);
    reply.header('link', `<${next.toString()}>; rel="next"`);
  }
  return kept;
}

/** A `true`/`false` query flag, undefined when absent; anything else is a 400. */
export function boolQuery(query: unknown, key: string): boolean | undefined {
  const v = qs(query, key);
  if (v === undefined) return undefined;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw errors.badRequest(`${key} must be true or false.`);
}
