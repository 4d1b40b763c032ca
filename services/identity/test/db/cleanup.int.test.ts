import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, createUser, login, newLoginFlow, startHarness, type Harness } from '../harness.ts';
import { cleanupExpired } from '../../src/db/cleanup.ts';

describe('cleanupExpired', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('removes expired flows and sessions but keeps live ones', async () => {
    await createUser(h, 'clean@example.com');
    const old = new Browser(h.publicUrl);
    await login(old, 'clean@example.com');
    await newLoginFlow(new Browser(h.publicUrl));
    h.clock.advance(9 * 24 * 3600_000);
    const fresh = new Browser(h.publicUrl);
    await login(fresh, 'clean@example.com');
    const { flow } = await newLoginFlow(new Browser(h.publicUrl));
    await h.app.ctx.db
      .insertInto('identity_attempts')
      .values({
        scope: 'code:address',
        key: 'stale@example.com',
        window_start: new Date(h.clock.now().getTime() - 2 * 24 * 3600_000),
        count: 3,
      })
      .execute();
    await cleanupExpired(h.app.ctx.db, h.clock.now());
    const flows = await h.app.ctx.db.selectFrom('identity_flows').select('id').execute();
    expect(flows.map((f) => f.id)).toContain(flow.id);
    expect(flows.length).toBe(2); // the fresh login's flow and the new one
    const sessions = await h.app.ctx.db.selectFrom('identity_sessions').select('id').execute();
    expect(sessions).toHaveLength(1);
    expect((await fresh.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
    // Attempt budgets: a window that ended days ago is gone, the fresh login's is kept.
    const windows = await h.app.ctx.db
      .selectFrom('identity_attempts')
      .select(['key', 'window_start'])
      .execute();
    expect(windows.map((w) => w.key)).toEqual(['127.0.0.1']);
    expect(new Date(windows[0]!.window_start).getTime()).toBe(h.clock.now().getTime());
  });
});
