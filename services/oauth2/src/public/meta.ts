import { readFileSync } from 'node:fs';
import { sql, type Database } from '@acme/db';
import type { Middleware } from 'koa';

/** The running software's version, as Hydra's `GET /version` answers it (`{version}`). */
export const VERSION: string = `v${
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version
}`;

/**
 * Hydra's health and version routes on the public port (the admin port has them too):
 * `/health/alive` 200 `{status:"ok"}`; `/health/ready` 200, or 503 `{errors:{database}}` when the
 * database does not answer; `/version` `{version}`.
 */
export function publicMeta(db: Database): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET') return next();
    const answer = (status: number, body: object) => {
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = body;
    };
    switch (ctx.path) {
      case '/health/alive':
        return answer(200, { status: 'ok' });
      case '/health/ready':
        try {
          await sql`select 1`.execute(db.kysely);
          return answer(200, { status: 'ok' });
        } catch {
          return answer(503, { errors: { database: 'not reachable' } });
        }
      case '/version':
        return answer(200, { version: VERSION });
      default:
        return next();
    }
  };
}
