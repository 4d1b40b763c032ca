import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  login,
  newLoginFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

const INVALID = 4000006;
const ids = (res: { body: { ui: { messages: { id: number }[] } } }) => res.body.ui.messages.map((m) => m.id);

describe('per-account lockout (ASVS 6.3.1, NIST SP 800-63B 5.2.2)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await createUser(h, 'target@example.com');
  });
  afterAll(() => h.close());

  it('after 10 failures the 11th attempt is refused like a wrong password, even with the right password; the wait grows', async () => {
    const b = new Browser(h.publicUrl);
    for (let i = 1; i <= 10; i++) {
      const res = await login(b, 'target@example.com', `wrong-${i}-password`);
      expect(res.status).toBe(400);
      expect(ids(res)).toEqual([INVALID]);
    }
    const eleventh = await login(b, 'target@example.com', 'wrong-11-password');
    expect(eleventh.status).toBe(400);
    expect(ids(eleventh)).toEqual([INVALID]);
    const right = await login(b, 'Target@Example.com', DEMO_PASSWORD);
    expect(right.status).toBe(400);
    expect(ids(right)).toEqual([INVALID]);

    // 15 min wait after the 10th failure; the 11th real failure then makes it 30 min.
    h.clock.advance(15 * 60_000 + 1000);
    expect((await login(b, 'target@example.com', 'wrong-again-11')).status).toBe(400);
    h.clock.advance(15 * 60_000);
    expect((await login(b, 'target@example.com', DEMO_PASSWORD)).status).toBe(400); // still inside 30 min
    h.clock.advance(15 * 60_000);
    const ok = await login(b, 'target@example.com', DEMO_PASSWORD);
    expect(ok.status).toBe(200);
    const row = await h.db.kysely
      .selectFrom('identity_login_throttle')
      .selectAll()
      .where('identifier', '=', 'target@example.com')
      .executeTakeFirst();
    expect(row).toBeUndefined(); // reset on success
  });

  it('unknown identifiers are counted and locked the same way (no existence oracle)', async () => {
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 11; i++) {
      const res = await login(b, 'ghost@example.com', `wrong-${i}-password`);
      expect(res.status).toBe(400);
      expect(ids(res)).toEqual([INVALID]);
    }
    const row = await h.db.kysely
      .selectFrom('identity_login_throttle')
      .selectAll()
      .where('identifier', '=', 'ghost@example.com')
      .executeTakeFirstOrThrow();
    expect(row.failures).toBe(10);
    expect(row.locked_until!.getTime()).toBeGreaterThan(h.clock.now().getTime());
  });
});

describe('parallel password guessing (the lockout holds under concurrency)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await createUser(h, 'race@example.com');
  });
  afterAll(() => h.close());

  it('password guessing in parallel cannot outrun the lockout: after 9 failures, 49 wrong and the right one (50 at once) admit at most one more', async () => {
    const email = 'race@example.com';
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 9; i++) expect((await login(b, email, `wrong-${i}-password`)).status).toBe(400);
    // 50 flows first, so that the submits themselves go out together: 49 wrong, the right one last.
    const browsers = Array.from({ length: 50 }, () => new Browser(h.publicUrl));
    const flows = await Promise.all(browsers.map((x) => newLoginFlow(x)));
    const results = await Promise.all(
      flows.map(({ flow, csrf }, i) =>
        submitFlow(browsers[i]!, 'login', flow, {
          method: 'password',
          identifier: email,
          password: i === 49 ? DEMO_PASSWORD : `parallel-wrong-${i}`,
          csrf_token: csrf,
        }),
      ),
    );
    // Every answer is the same wrong-credentials answer, the right password's included.
    for (const res of results) {
      expect(res.status, res.text).toBe(400);
      expect(ids(res)).toEqual([INVALID]);
    }
    expect((await browsers[49]!.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    // One more attempt was admitted (the 10th, which started the lockout); the other 49 were refused
    // before their password was hashed.
    const row = await h.db.kysely
      .selectFrom('identity_login_throttle')
      .selectAll()
      .where('identifier', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.failures).toBe(10);
    expect(row.locked_until!.getTime()).toBe(h.clock.now().getTime() + 15 * 60_000);
    // One lockout started, so its owner got one notice, not one per refused attempt.
    expect(h.mailbox.filter((m) => m.to === email && /is paused$/.test(m.subject))).toHaveLength(1);
    // The lockout ends, and the right password works again.
    h.clock.advance(15 * 60_000 + 1000);
    expect((await login(new Browser(h.publicUrl), email, DEMO_PASSWORD)).status).toBe(200);
  });
});

describe('per-IP failure limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ IDENTITY_IP_FAILURE_LIMIT: '5', IDENTITY_IP_FAILURE_WINDOW: '10m' });
    await createUser(h, 'ip@example.com');
  });
  afterAll(() => h.close());

  it('answers 429 in the Kratos envelope with Retry-After once the window holds too many failures', async () => {
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 5; i++)
      expect((await login(b, `spray${i}@example.com`, 'wrong password')).status).toBe(400);
    const res = await login(b, 'ip@example.com', DEMO_PASSWORD);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 429, status: 'Too Many Requests' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(10 * 60_000 + 1000);
    expect((await login(b, 'ip@example.com', DEMO_PASSWORD)).status).toBe(200);
  });
});

describe('operator unlock', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await createUser(h, 'locked@example.com');
  });
  afterAll(() => h.close());

  it('a locked-out user is let back in by the admin unlock before the lockout ends', async () => {
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 10; i++) await login(b, 'locked@example.com', `wrong-${i}-password`);
    expect((await login(b, 'locked@example.com', DEMO_PASSWORD)).status).toBe(400);
    const admin = new Browser(h.adminUrl);
    const bad = await admin.post('/admin/lockouts/reset', { json: {}, accept: 'json' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(400);
    const res = await admin.post('/admin/lockouts/reset', {
      json: { identifier: 'Locked@Example.com' },
      accept: 'json',
    });
    expect(res.status).toBe(204);
    expect((await login(b, 'locked@example.com', DEMO_PASSWORD)).status).toBe(200);
  });
});
