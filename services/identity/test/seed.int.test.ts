import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePasswordIdentity } from '../src/seed.ts';
import { Browser, login, startHarness, type Harness } from './harness.ts';

describe('ensurePasswordIdentity (demo seeding)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('creates once, then finds the existing identity; the user can sign in', async () => {
    const input = {
      email: 'Demo@Example.com',
      password: 'demo passphrase 2026',
      traits: { name: { first: 'Demo', last: 'User' } },
    };
    const first = await ensurePasswordIdentity(h.db, input, h.clock);
    const second = await ensurePasswordIdentity(h.db, input, h.clock);
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    const res = await login(new Browser(h.publicUrl), 'demo@example.com', 'demo passphrase 2026');
    expect(res.status).toBe(200);
    expect(res.body.session.identity.verifiable_addresses[0].verified).toBe(true);
  });
});
