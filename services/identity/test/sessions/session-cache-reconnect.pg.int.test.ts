import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { Browser, createUser, login, startHarness, type Harness } from '../harness.ts';

// PostgreSQL only (`*.pg.int.test.ts` runs in the PostgreSQL stage): the cache's LISTEN connection
// is a separate PostgreSQL connection that can be lost; an embedded PGlite has none.
describe('session cache when its LISTEN connection is lost', () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await startHarness();
    b = await startHarness({}, { db: a.db, clock: a.clock });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const whoami = (br: Browser) => br.get('/sessions/whoami', { accept: 'json' });

  /** Signs in on A and answers a browser for B holding that session, with B's cache warmed. */
  async function warmOnB(email: string): Promise<{ onB: Browser }> {
    await createUser(a, email);
    const onA = new Browser(a.publicUrl);
    expect((await login(onA, email)).status).toBe(200);
    const onB = new Browser(b.publicUrl);
    onB.cookies.set('ory_kratos_session', onA.cookies.get('ory_kratos_session')!);
    expect((await whoami(onB)).status).toBe(200);
    return { onB };
  }

  /** Waits up to `ms` for `cond`; answers whether it held. */
  async function until(cond: () => boolean, ms: number): Promise<boolean> {
    const started = performance.now();
    while (!cond() && performance.now() - started < ms) await new Promise((r) => setTimeout(r, 20));
    return cond();
  }

  it('losing the listening connection empties B’s cache and stops caching until it listens again', async () => {
    const { onB } = await warmOnB('cache-reconnect@example.com');
    const cache = b.app.ctx.sessionCache;
    expect(cache.size).toBeGreaterThan(0);
    // Ends every listening connection on this database (A's and B's).
    const killed = await sql<{ ok: boolean }>`select pg_terminate_backend(pid) as ok from pg_stat_activity
        where datname = current_database() and application_name = 'listen:identity_session_changes'`.execute(
      a.db.kysely,
    );
    expect(killed.rows.length).toBe(2);
    expect(await until(() => !cache.enabled, 1000)).toBe(true);
    expect(cache.size).toBe(0);
    // Listening again within the back-off; then the cache fills again.
    expect(await until(() => cache.enabled, 5000)).toBe(true);
    expect((await whoami(onB)).status).toBe(200);
    expect(cache.size).toBe(1);
    const hits = cache.stats.hits;
    expect((await whoami(onB)).status).toBe(200);
    expect(cache.stats.hits).toBe(hits + 1);
  });
});
