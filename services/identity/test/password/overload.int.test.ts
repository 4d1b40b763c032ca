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
} from '../harness.ts';

// One hash at a time and one waiting: the smallest pool, so a burst overflows it for sure.
let h: Harness;
const email = 'grace@example.com';
const other = 'ada@example.com';

beforeAll(async () => {
  h = await startHarness({ IDENTITY_HASH_CONCURRENCY: '1', IDENTITY_HASH_QUEUE: '1' });
  await createUser(h, email);
  await createUser(h, other);
});
afterAll(() => h.close());

/** Occupies every slot and queue place of the service's own pool until `release()`. */
function fillPool() {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const pool = h.app.ctx.passwords.pool;
  const tasks = [pool.run(() => held), pool.run(() => held)];
  return {
    async release() {
      release();
      await Promise.all(tasks);
    },
  };
}

function expectOverloaded(res: { status: number; headers: Headers; body: unknown }) {
  expect(res.status).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.body).toMatchObject({
    error: { id: 'service_overloaded', code: 503, status: 'Service Unavailable' },
  });
}

describe('password hashing at capacity', () => {
  it('answers a login 503 with Retry-After and the Kratos envelope, then logs in once drained', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    const full = fillPool();
    const refused = await submitFlow(b, 'login', flow, {
      method: 'password',
      identifier: email,
      password: DEMO_PASSWORD,
      csrf_token: csrf,
    });
    expectOverloaded(refused);
    await full.release();

    const ok = await submitFlow(b, 'login', flow, {
      method: 'password',
      identifier: email,
      password: DEMO_PASSWORD,
      csrf_token: csrf,
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.session.identity.traits.email).toBe(email);
  });

  it('refuses setting a password through the admin API while full (503, not a wait)', async () => {
    const full = fillPool();
    const res = await fetch(`${h.adminUrl}/admin/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_id: 'default',
        traits: { email: 'new@example.com', userServiceID: 'usr_new', name: { first: 'N', last: 'N' } },
        credentials: { password: { config: { password: 'another long passphrase 7' } } },
      }),
    });
    expectOverloaded({ status: res.status, headers: res.headers, body: await res.json() });
    await full.release();
  });

  it('an overload refusal is not a failed attempt: twelve 503s in a row do not lock the account', async () => {
    // Every attempt is counted before its hash is checked; a 503 gives it back. Twelve refusals are
    // past the lockout threshold of 10, so without the give-back the right password would be refused.
    const b = new Browser(h.publicUrl);
    const full = fillPool();
    for (let i = 0; i < 12; i++) expectOverloaded(await login(b, other, DEMO_PASSWORD));
    await full.release();
    const ok = await login(b, other, DEMO_PASSWORD);
    expect(ok.status, ok.text).toBe(200);
  });

  it('under a burst of real logins some are refused, none fails otherwise, and logins work after', async () => {
    // Eight per account: parallel attempts on one account beyond the lockout threshold (10) would be
    // refused by the lockout, which counts each attempt before its hash is checked.
    const attempts = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => login(new Browser(h.publicUrl), i % 2 ? other : email)),
    );
    const statuses = attempts.map((r) => r.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const r of attempts.filter((a) => a.status === 503)) expectOverloaded(r);

    // A refused attempt is not a failed attempt: the account is not locked, and logins go through.
    const after = await login(new Browser(h.publicUrl), email);
    expect(after.status, after.text).toBe(200);
    expect(h.app.ctx.passwords.pool.active).toBe(0);
    expect(h.app.ctx.passwords.pool.queued).toBe(0);

    // The refusals are counted on the management listener's /metrics.
    const metrics = await (await fetch(`${h.managementUrl}/metrics`)).text();
    const refused = metrics.split('\n').find((l) => l.startsWith('identity_password_hash_rejected_total{'));
    expect(Number(refused?.split(' ').at(-1))).toBeGreaterThanOrEqual(
      statuses.filter((s) => s === 503).length + 2,
    );
  });
});
