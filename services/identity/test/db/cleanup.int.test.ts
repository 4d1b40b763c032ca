import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, createUser, login, newLoginFlow, startHarness, type Harness } from '../harness.ts';
import { cleanupExpired } from '../../src/db/cleanup.ts';
import { loadConfig } from '../../src/config.ts';

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
    await cleanupExpired(h.app.ctx.db, h.clock.now(), h.app.ctx.config.retention);
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
    await cleanupExpired(h.app.ctx.db, now, h.app.ctx.config.retention, 3);
    const left = await h.app.ctx.db.selectFrom('identity_oidc_states').select('state_hash').execute();
    expect(left.map((r) => r.state_hash)).toEqual(['live']);
  });

  it('keeps an expired flow and an ended session for their retention and deletes them after it', async () => {
    const hour = 3600_000;
    // Two hours for spent records, three days for ended sessions (the settings' smallest units).
    const retention = {
      spentMs: 2 * hour,
      endedSessionsMs: 72 * hour,
      spentChallengesMs: 2 * hour,
      spentAssertionsMs: 2 * hour,
    };
    await h.app.ctx.db.deleteFrom('identity_flows').execute();
    await h.app.ctx.db.deleteFrom('identity_sessions').execute();
    await createUser(h, 'retained@example.com');
    const browser = new Browser(h.publicUrl);
    await login(browser, 'retained@example.com');
    const { flow } = await newLoginFlow(new Browser(h.publicUrl));
    const flowIds = async () =>
      (await h.app.ctx.db.selectFrom('identity_flows').select('id').execute()).map((f) => f.id);
    const sessionCount = async () =>
      (await h.app.ctx.db.selectFrom('identity_sessions').select('id').execute()).length;
    // The flow expires after IDENTITY_FLOW_LIFESPAN (1 h): a minute short of 1 h + 2 h it stays.
    h.clock.advance(3 * hour - 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await flowIds()).toContain(flow.id);
    h.clock.advance(2 * 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await flowIds()).not.toContain(flow.id);
    // The session expires after IDENTITY_SESSION_LIFESPAN (24 h), then stays its 72 h.
    expect(await sessionCount()).toBe(1);
    h.clock.advance(24 * hour + 72 * hour - 3 * hour - 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await sessionCount()).toBe(1);
    h.clock.advance(2 * 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await sessionCount()).toBe(0);
  });

  it('a spent passkey challenge outlives a shorter retention while the challenge could still be answered (no replay)', async () => {
    const hour = 3600_000;
    // SPENT_RECORDS_RETENTION_HOURS=1 with IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN=3h: the spent mark
    // must stay the challenge's three hours, or a captured answer could be spent a second time.
    const { retention } = loadConfig({
      SPENT_RECORDS_RETENTION_HOURS: '1',
      IDENTITY_WEBAUTHN_CHALLENGE_LIFESPAN: '3h',
    });
    expect(retention.spentMs).toBe(hour);
    const spentAt = h.clock.now();
    await h.app.ctx.db
      .insertInto('identity_webauthn_spent_challenges')
      .values({ challenge: 'answered-once', spent_at: spentAt })
      .execute();
    const spent = async () =>
      (await h.app.ctx.db.selectFrom('identity_webauthn_spent_challenges').select('challenge').execute()).map(
        (c) => c.challenge,
      );
    h.clock.advance(3 * hour - 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await spent()).toContain('answered-once');
    h.clock.advance(2 * 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await spent()).not.toContain('answered-once');
  });

  it('threat: a spent SAML assertion id is deleted while the assertion is still accepted (clock skew longer than the retention), so a replay passes', async () => {
    const hour = 3600_000;
    // SPENT_RECORDS_RETENTION_HOURS=1 with IDENTITY_SAML_CLOCK_SKEW=2h: an assertion is accepted
    // until NotOnOrAfter + 2 h, so its spent id must stay that long (a replay at 90 min is refused).
    const { retention } = loadConfig({ SPENT_RECORDS_RETENTION_HOURS: '1', IDENTITY_SAML_CLOCK_SKEW: '2h' });
    expect(retention.spentMs).toBe(hour);
    const notOnOrAfter = h.clock.now();
    await h.app.ctx.db
      .insertInto('identity_saml_spent_assertions')
      .values({ assertion_id: '_spent-once', expires_at: notOnOrAfter })
      .execute();
    const spent = async () =>
      (await h.app.ctx.db.selectFrom('identity_saml_spent_assertions').select('assertion_id').execute()).map(
        (a) => a.assertion_id,
      );
    h.clock.advance(90 * 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await spent()).toContain('_spent-once');
    h.clock.advance(30 * 60_000 - 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await spent()).toContain('_spent-once');
    h.clock.advance(2 * 60_000);
    await cleanupExpired(h.app.ctx.db, h.clock.now(), retention);
    expect(await spent()).not.toContain('_spent-once');
  });
});
