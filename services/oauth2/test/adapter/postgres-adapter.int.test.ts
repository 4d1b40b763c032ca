import { createTestDb, migrate, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/migrations.ts';
import {
  createAdapterRegistry,
  deleteExpired,
  type AdapterRegistry,
} from '../../src/adapter/postgres-adapter.ts';

let db: Database;
let adapters: AdapterRegistry;
const clock = new FakeClock();
const GRACE = 5;

beforeAll(async () => {
  db = await createTestDb();
  await migrate(db, 'oauth2', migrations);
  adapters = createAdapterRegistry({ db, clock, graceSeconds: GRACE });
});
afterAll(async () => {
  await db?.close();
});

describe('PostgresAdapter', () => {
  it('stores, finds, updates and destroys a payload', async () => {
    const a = adapters.get('Session');
    await a.upsert('s1', { uid: 'u1', accountId: 'x' }, 60);
    expect(await a.find('s1')).toEqual({ uid: 'u1', accountId: 'x' });
    expect(await a.findByUid('u1')).toEqual({ uid: 'u1', accountId: 'x' });
    await a.upsert('s1', { uid: 'u2', accountId: 'y' }, 60);
    expect(await a.findByUid('u1')).toBeUndefined();
    expect(await a.findByUid('u2')).toMatchObject({ accountId: 'y' });
    await a.destroy('s1');
    expect(await a.find('s1')).toBeUndefined();
  });

  it('keeps models apart under the same id', async () => {
    await adapters.get('Grant').upsert('same', { accountId: 'grant' }, 60);
    await adapters.get('Session').upsert('same', { accountId: 'session' }, 60);
    expect(await adapters.get('Grant').find('same')).toEqual({ accountId: 'grant' });
    expect(await adapters.get('Session').find('same')).toEqual({ accountId: 'session' });
  });

  it('hides expired records', async () => {
    const a = adapters.get('AuthorizationCode');
    await a.upsert('c-exp', { grantId: 'g' }, 10);
    clock.advance(11_000);
    expect(await a.find('c-exp')).toBeUndefined();
    await deleteExpired(db, clock);
    expect(await a.findRecord('c-exp')).toBeUndefined();
  });

  it("deletes a device code's polling record at the code's expiry, and not before", async () => {
    const now = clock.now();
    const poll = (id: string, expiresAt: Date) =>
      sql`insert into oauth2_device_polls (id, last_polled_at, interval_s, expires_at)
        values (${id}, ${now.toISOString()}::timestamptz, 5, ${expiresAt.toISOString()}::timestamptz)`.execute(
        db.kysely,
      );
    await poll('poll-expiring', new Date(now.getTime() + 60_000));
    await poll('poll-later', new Date(now.getTime() + 120_000));
    const left = async () =>
      (await sql<{ id: string }>`select id from oauth2_device_polls order by id`.execute(db.kysely)).rows.map(
        (r) => r.id,
      );
    await deleteExpired(db, clock, 1);
    expect(await left()).toEqual(['poll-expiring', 'poll-later']);
    clock.advance(61_000);
    await deleteExpired(db, clock, 1);
    expect(await left()).toEqual(['poll-later']);
  });

  it('consume is atomic: of ten concurrent consumers exactly one wins', async () => {
    const a = adapters.get('AuthorizationCode');
    await a.upsert('c-race', { grantId: 'g' }, 60);
    const wins = await Promise.all(Array.from({ length: 10 }, () => a.consumeOnce('c-race')));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('a second consume of an authorization code fails with invalid_grant', async () => {
    const a = adapters.get('AuthorizationCode');
    await a.upsert('c-twice', { grantId: 'g' }, 60);
    await a.consume('c-twice');
    await expect(a.consume('c-twice')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await a.find('c-twice'))?.consumed).toEqual(expect.any(Number));
  });

  it('a consumed refresh token looks unconsumed during the grace window, consumed after it', async () => {
    const a = adapters.get('RefreshToken');
    await a.upsert('rt-grace', { grantId: 'g' }, 600);
    await a.consume('rt-grace');
    await a.consume('rt-grace'); // a second tab inside the window: no error
    expect((await a.find('rt-grace'))?.consumed).toBeUndefined();
    clock.advance((GRACE + 1) * 1000);
    expect((await a.find('rt-grace'))?.consumed).toEqual(expect.any(Number));
  });

  it('destroying an interaction keeps a record for the admin API (410) but hides it from the library', async () => {
    const a = adapters.get('Interaction');
    await a.upsert('i1', { returnTo: 'x' }, 60);
    await a.destroy('i1');
    expect(await a.find('i1')).toBeUndefined();
    expect(await a.findRecord('i1')).toMatchObject({ consumedAt: expect.any(Number) });
  });

  it('revokeByGrantId removes only that model’s records of that grant', async () => {
    await adapters.get('RefreshToken').upsert('rt-a', { grantId: 'G1' }, 60);
    await adapters.get('RefreshToken').upsert('rt-b', { grantId: 'G2' }, 60);
    await adapters.get('AccessToken').upsert('at-a', { grantId: 'G1' }, 60);
    await adapters.get('RefreshToken').revokeByGrantId('G1');
    expect(await adapters.get('RefreshToken').find('rt-a')).toBeUndefined();
    expect(await adapters.get('RefreshToken').find('rt-b')).toBeDefined();
    expect(await adapters.get('AccessToken').find('at-a')).toBeDefined();
  });
});
