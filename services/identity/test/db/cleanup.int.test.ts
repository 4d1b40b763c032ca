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

  it('deletes a backlog larger than one batch, batch after batch, and abandoned social sign-in states', async () => {
    const now = h.clock.now();
    const expired = new Date(now.getTime() - 2 * 24 * 3600_000);
    await h.app.ctx.db
      .insertInto('identity_oidc_states')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          state_hash: `abandoned-${i}`,
          flow_id: '00000000-0000-4000-8000-000000000000',
          provider: 'google',
          nonce: 'n',
          code_verifier: 'v',
          created_at: expired,
          expires_at: expired,
        })),
      )
      .execute();
    await h.app.ctx.db
      .insertInto('identity_oidc_states')
      .values({
        state_hash: 'live',
        flow_id: '00000000-0000-4000-8000-000000000000',
        provider: 'google',
        nonce: 'n',
        code_verifier: 'v',
        created_at: now,
        expires_at: new Date(now.getTime() + 600_000),
      })
      .execute();
    await cleanupExpired(h.app.ctx.db, now, 3);
    const left = await h.app.ctx.db.selectFrom('identity_oidc_states').select('state_hash').execute();
    expect(left.map((r) => r.state_hash)).toEqual(['live']);
  });
});
