import { randomUUID } from 'node:crypto';
import { createTestDb, migrate, typed, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { deleteEndedRecords, startEventRetention } from '../../src/console/retention.ts';
import type { UsersDb } from '../../src/db-types.ts';
import { migrations } from '../../src/migrations.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;

describe('retention of the user service', () => {
  let database: Database;
  let db: Kysely<UsersDb>;
  let organisationId = '';
  let userId = '';
  let endpointId = '';
  const clock = new FakeClock(new Date('2027-03-01T12:00:00.000Z'));

  beforeAll(async () => {
    database = await createTestDb();
    await migrate(database, 'users', migrations);
    db = typed<UsersDb>(database);
    organisationId = randomUUID();
    userId = randomUUID();
    endpointId = randomUUID();
    const at = clock.now();
    await sql`insert into organisations (id, name, subscription_status, created_at)
      values (${organisationId}, 'Retained', 'subscribed', ${at})`.execute(db);
    await sql`insert into users (id, organisation_id, identity_id, email, first_name, last_name, role, created_at)
      values (${userId}, ${organisationId}, ${randomUUID()}, 'ada@retained.test', 'Ada', 'L', 'member', ${at})`.execute(
      db,
    );
    await sql`insert into webhook_endpoints (id, organisation_id, url, state, secret, created_at, updated_at)
      values (${endpointId}, ${organisationId}, 'https://hooks.retained.test/', 'active', 'sealed', ${at}, ${at})`.execute(
      db,
    );
  });
  afterAll(() => database.close());

  const delivery = (id: string, status: string, createdAt: Date) =>
    sql`insert into webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, retry_until, created_at)
      values (${id}, ${endpointId}, ${randomUUID()}, 'member.unlocked', '{}', ${status}, ${createdAt}, ${createdAt})`.execute(
      db,
    );
  const testSignIn = (state: string, expiresAt: Date) =>
    sql`insert into sso_test_sign_ins (state_hash, organisation_id, user_id, issuer, nonce, code_verifier, redirect_uri, created_at, expires_at)
      values (${state}, ${organisationId}, ${userId}, 'https://idp.test', 'n', 'v', 'https://x.test/cb', ${expiresAt}, ${expiresAt})`.execute(
      db,
    );
  const gitState = (state: string, expiresAt: Date) =>
    sql`insert into git_auth_states (state_hash, user_id, flow, redirect_uri, created_at, expires_at)
      values (${state}, ${userId}, 'link', 'https://x.test/cb', ${expiresAt}, ${expiresAt})`.execute(db);
  const column = async (table: 'webhook_deliveries' | 'sso_test_sign_ins' | 'git_auth_states') => {
    const key = table === 'webhook_deliveries' ? 'id' : 'state_hash';
    const rows = await sql<{ key: string }>`select ${sql.ref(key)} as key from ${sql.table(table)}`.execute(
      db,
    );
    return rows.rows.map((r) => r.key).sort();
  };

  it('deletes finished webhook deliveries past WEBHOOK_DELIVERIES_RETENTION_DAYS, keeps younger and unfinished ones', async () => {
    const { retention } = loadConfig({ WEBHOOK_DELIVERIES_RETENTION_DAYS: '3' });
    const now = clock.now();
    const old = new Date(now.getTime() - 3 * DAY - MINUTE);
    const young = new Date(now.getTime() - 3 * DAY + MINUTE);
    await delivery('00000000-0000-4000-8000-000000000001', 'delivered', old);
    await delivery('00000000-0000-4000-8000-000000000002', 'abandoned', old);
    await delivery('00000000-0000-4000-8000-000000000003', 'pending', old);
    await delivery('00000000-0000-4000-8000-000000000004', 'failed', old);
    await delivery('00000000-0000-4000-8000-000000000005', 'delivered', young);
    await deleteEndedRecords(db, now, retention, 1);
    expect(await column('webhook_deliveries')).toEqual([
      '00000000-0000-4000-8000-000000000003',
      '00000000-0000-4000-8000-000000000004',
      '00000000-0000-4000-8000-000000000005',
    ]);
  });

  it('deletes SSO test sign-ins and Git link states SPENT_RECORDS_RETENTION_HOURS after they expired', async () => {
    const { retention } = loadConfig({ SPENT_RECORDS_RETENTION_HOURS: '2' });
    const now = clock.now();
    await testSignIn('test-old', new Date(now.getTime() - 2 * HOUR - MINUTE));
    await testSignIn('test-young', new Date(now.getTime() - 2 * HOUR + MINUTE));
    await gitState('git-old', new Date(now.getTime() - 2 * HOUR - MINUTE));
    await gitState('git-young', new Date(now.getTime() - 2 * HOUR + MINUTE));
    await deleteEndedRecords(db, now, retention, 1);
    expect(await column('sso_test_sign_ins')).toEqual(['test-young']);
    expect(await column('git_auth_states')).toEqual(['git-young']);
  });

  it('the hourly job trims the event feed with the log it mirrors, as the clock moves on', async () => {
    const config = loadConfig({ SECURITY_EVENTS_RETENTION_DAYS: '10' });
    const feedRow = (id: string, occurredAt: Date) =>
      sql`insert into event_feed (id, organisation_id, occurred_at, type, payload)
        values (${id}, ${organisationId}, ${occurredAt}, 'member.unlocked', '{}'::jsonb)`.execute(db);
    const start = clock.now();
    await feedRow('00000000-0000-4000-8000-00000000000a', new Date(start.getTime() - 10 * DAY + HOUR / 2));
    await feedRow('00000000-0000-4000-8000-00000000000b', new Date(start.getTime() - 10 * DAY + 2 * HOUR));
    const feed = async () =>
      (await db.selectFrom('event_feed').select('id').orderBy('id').execute()).map((r) => r.id);
    const failures: unknown[] = [];
    const job = startEventRetention({ db, config, clock, onError: (e) => failures.push(e) }, 20);
    await job.stop();
    expect(await feed()).toHaveLength(2);
    clock.advance(HOUR);
    const later = startEventRetention({ db, config, clock, onError: (e) => failures.push(e) }, 20);
    await later.stop();
    expect(await feed()).toEqual(['00000000-0000-4000-8000-00000000000b']);
    expect(failures).toEqual([]);
  });
});

describe('retention settings of the user service', () => {
  for (const name of [
    'SPENT_RECORDS_RETENTION_HOURS',
    'WEBHOOK_DELIVERIES_RETENTION_DAYS',
    'SECURITY_EVENTS_RETENTION_DAYS',
  ])
    for (const value of ['0', '-3', 'forever', '2.5'])
      it(`refuses to start with ${name}=${value}, naming the setting`, () => {
        expect(() => loadConfig({ [name]: value })).toThrow(name);
      });

  it('default to a day of spent records and 30 days of finished deliveries', () => {
    expect(loadConfig({}).retention).toEqual({ spentMs: DAY, finishedDeliveriesMs: 30 * DAY });
  });
});
