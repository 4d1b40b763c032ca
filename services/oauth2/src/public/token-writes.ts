import { sql, type Database } from '@acme/db';
import type { Middleware } from 'koa';
import { requestState } from '../request-state.ts';

/**
 * `POST /oauth2/token` in two database round trips: the code or refresh token is read with its
 * grant and consent in one query (the adapter), and everything the request writes (the code's or
 * refresh token's consumption, the new refresh token, the access-token index row, claims re-read
 * at a refresh) goes out as ONE statement once the library has built a successful response.
 *
 * The authorization or device code's consumption gates the rest (`… where exists (select 1
 * from gate)`): when a concurrent request consumed the code first, nothing is written and this
 * request answers `invalid_grant` instead of the tokens, so a code still yields tokens at most
 * once. A failed request writes nothing.
 */
export function tokenWrites(db: Database, tokenPath: string): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== tokenPath) return next();
    const state = requestState(ctx)!;
    state.deferWrites = true;
    await next();
    const { gate, pending } = state;
    state.deferWrites = false;
    if (ctx.status !== 200 || (!gate && pending.length === 0)) return;

    const cond = gate ? sql`exists (select 1 from gate)` : sql`true`;
    const ctes = [
      ...(gate ? [sql`gate as (${gate})`] : []),
      ...pending.map((write, i) => sql`${sql.raw(`w${i}`)} as (${write(cond)})`),
    ];
    const result = await sql<{ consumed: number }>`
      with ${sql.join(ctes, sql`, `)}
      select ${gate ? sql`(select count(*) from gate)` : sql`1`}::int as consumed`.execute(db.kysely);
    if (gate && result.rows[0]?.consumed !== 1) {
      ctx.status = 400;
      ctx.type = 'application/json';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        error: 'invalid_grant',
        error_description: `${state.gateLabel ?? 'code'} already consumed`,
      };
    }
  };
}
