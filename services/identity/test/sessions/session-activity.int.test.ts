import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, createUser, login, startHarness, type Harness } from '../harness.ts';

// "Last active" of a session, for the account page's session list: written at most once per
// 5 minutes, in a table of its own, so whoami keeps answering from the session cache.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const whoami = (b: Browser) => b.get('/sessions/whoami', { accept: 'json' });

describe('session activity', () => {
  it('last active moves at most once per 5 minutes and never costs whoami its cache', async () => {
    const email = 'activity@example.com';
    await createUser(h, email);
    const here = new Browser(h.publicUrl);
    const there = new Browser(h.publicUrl);
    expect((await login(here, email)).status).toBe(200);
    const signedInAt = h.clock.now().toISOString();
    expect((await login(there, email)).status).toBe(200);
    const lastActiveOfThere = async () => {
      const list = await here.get('/sessions', { accept: 'json' });
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(1);
      const device = list.body[0].devices[0];
      expect(device.first_seen_at).toBe(signedInAt);
      return device.last_active_at as string;
    };

    expect((await whoami(there)).status).toBe(200);
    expect(await lastActiveOfThere()).toBe(h.clock.now().toISOString());
    const first = h.clock.now().toISOString();

    h.clock.advance(4 * 60_000);
    expect((await whoami(there)).status).toBe(200);
    expect(await lastActiveOfThere()).toBe(first); // not written again within 5 minutes

    h.clock.advance(60_000);
    expect((await whoami(there)).status).toBe(200);
    const moved = h.clock.now().toISOString();
    expect(await lastActiveOfThere()).toBe(moved);
    // The write did not invalidate the cached session: the next whoami is still a cache hit.
    await new Promise((r) => setTimeout(r, 50));
    const hits = h.app.ctx.sessionCache.stats.hits;
    expect((await whoami(there)).status).toBe(200);
    expect(h.app.ctx.sessionCache.stats.hits).toBe(hits + 1);
  });
});
