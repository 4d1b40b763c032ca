import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, typed, type Database } from '@acme/db';
import type { Kysely } from 'kysely';
import type { IdentityDb } from '../../src/db/schema.ts';
import { migrations } from '../../src/migrations.ts';
import { resetLogin, unlockAccount } from '../../src/throttle/attempts.ts';
import { CODE_SCOPE, admitCodeAttempt, codeMatchesHmac, hmacCode } from '../../src/throttle/code-guard.ts';

const MIN = 60_000;
const limits = { perFlow: 5, perAddress: 10, windowMs: 60 * MIN, perIp: 50, ipWindowMs: 60 * MIN };
const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

let database: Database;
let db: Kysely<IdentityDb>;
beforeAll(async () => {
  database = await createTestDb();
  await migrate(database, 'identity', migrations);
  db = typed<IdentityDb>(database);
});
afterAll(() => database.close());

async function flow(): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('identity_flows')
    .values({
      id,
      kind: 'recovery',
      type: 'browser',
      state: 'sent_email',
      csrf_hash: null,
      request_url: 'http://x',
      return_to: null,
      refresh: false,
      requested_aal: 'aal1',
      oauth2_login_challenge: null,
      identity_id: null,
      session_id: null,
      ui: '{}',
      internal: JSON.stringify({ submissions: 0 }),
      issued_at: t0,
      expires_at: at(60 * MIN),
      created_at: t0,
      updated_at: t0,
    })
    .execute();
  return id;
}

const attempt = (
  flowId: string,
  subject: string,
  now = t0,
  ip = '203.0.113.1',
  scope: string = CODE_SCOPE.address,
) =>
  admitCodeAttempt(db, { flowId, flowKey: 'code_failures', subject, subjectScope: scope, ip, now, limits });

describe('one-time code guessing', () => {
  it('recovery code brute force across resends is refused', async () => {
    const address = 'victim@example.com';
    // Two resends (three flows), at most 5 guesses on each: the 11th guess overall is refused,
    // even when it is the right code, for the rest of the hour.
    const flows = [await flow(), await flow(), await flow()];
    let guesses = 0;
    for (const f of flows) {
      for (let i = 0; i < 4 && guesses < 10; i++, guesses++) {
        const a = await attempt(f, address);
        expect(a.refused).toBeUndefined();
        await a.settle(false);
      }
    }
    const eleventh = await attempt(flows[2]!, address, at(MIN));
    expect(eleventh.refused).toBe('address');
    expect(eleventh.retryAfterSec).toBe(59 * 60);
    const fresh = await attempt(await flow(), address, at(30 * MIN));
    expect(fresh.refused).toBe('address');
    // The hour ends.
    expect((await attempt(await flow(), address, at(60 * MIN))).refused).toBeUndefined();
  });

  it('a flow’s code dies after 5 wrong codes', async () => {
    const f = await flow();
    for (let i = 0; i < 5; i++) expect((await attempt(f, `perflow${i}@example.com`)).refused).toBeUndefined();
    expect((await attempt(f, 'perflow-other@example.com')).refused).toBe('flow');
  });

  it('50 concurrent wrong codes on one flow cannot overshoot its 5 attempts', async () => {
    const f = await flow();
    const all = await Promise.all(Array.from({ length: 50 }, () => attempt(f, 'race-code@example.com')));
    expect(all.filter((a) => a.refused === undefined)).toHaveLength(5);
  });

  it('code guessing from one IP across many addresses runs out of the per-IP budget', async () => {
    const ip = '198.51.100.7';
    for (let i = 0; i < 50; i++) {
      const a = await attempt(await flow(), `spray${i}@example.com`, t0, ip);
      expect(a.refused).toBeUndefined();
    }
    expect((await attempt(await flow(), 'spray-last@example.com', t0, ip)).refused).toBe('ip');
  });

  it('a right code gives its attempt back', async () => {
    const address = 'right@example.com';
    for (let i = 0; i < 20; i++) {
      const a = await attempt(await flow(), address);
      expect(a.refused).toBeUndefined();
      await a.settle(true);
    }
  });

  it('one person hammering a spent address does not spend the office network’s IP budget', async () => {
    // Behind one NAT, someone retrying a locked address must not use up the attempts of everyone else:
    // an attempt refused by the address budget compares no code and gives its IP attempt back.
    const ip = '198.51.100.99';
    const address = 'hammer@example.com';
    for (let i = 0; i < 10; i++) await (await attempt(await flow(), address, t0, ip)).settle(false);
    for (let i = 0; i < 60; i++)
      expect((await attempt(await flow(), address, t0, ip)).refused).toBe('address');
    const ipRow = await db
      .selectFrom('identity_attempts')
      .select('count')
      .where('scope', '=', CODE_SCOPE.ip)
      .where('key', '=', ip)
      .executeTakeFirstOrThrow();
    expect(ipRow.count).toBe(10);
    expect((await attempt(await flow(), 'colleague@example.com', t0, ip)).refused).toBeUndefined();
  });

  it('TOTP brute force is not reset by a password success', async () => {
    const identityId = randomUUID();
    for (let i = 0; i < 10; i++) {
      const a = await attempt(await flow(), identityId, t0, '192.0.2.1', CODE_SCOPE.totpAccount);
      expect(a.refused).toBeUndefined();
      await a.settle(false);
      // A password success in between resets only the password counter.
      await resetLogin(db, 'totp-user@example.com');
    }
    const next = await attempt(await flow(), identityId, t0, '192.0.2.1', CODE_SCOPE.totpAccount);
    expect(next.refused).toBe('address');
    // An operator's unlock ends it.
    await unlockAccount(db, 'totp-user@example.com', identityId);
    expect(
      (await attempt(await flow(), identityId, t0, '192.0.2.2', CODE_SCOPE.totpAccount)).refused,
    ).toBeUndefined();
  });
});

describe('stored codes', () => {
  it('codes are stored as an HMAC under the server secret, not an unsalted SHA-256', () => {
    const flowId = randomUUID();
    const stored = hmacCode('s'.repeat(40), flowId, '123456');
    expect(stored).not.toBe(createHash('sha256').update(`${flowId}:123456`).digest('hex'));
    expect(stored).not.toBe(hmacCode('t'.repeat(40), flowId, '123456'));
    expect(codeMatchesHmac(['s'.repeat(40)], flowId, ' 123456 ', stored)).toBe(true);
    expect(codeMatchesHmac(['t'.repeat(40)], flowId, '123456', stored)).toBe(false);
    expect(codeMatchesHmac(['s'.repeat(40)], randomUUID(), '123456', stored)).toBe(false);
    for (const bad of [123456, '12345', '1234567', 'abcdef', null, undefined])
      expect(codeMatchesHmac(['s'.repeat(40)], flowId, bad, stored)).toBe(false);
    expect(codeMatchesHmac(['s'.repeat(40)], flowId, '123456', 'not-hex')).toBe(false);
  });

  it('IDENTITY_CODE_SECRET rotated: a code stored under a listed secret matches, one under a dropped secret does not', () => {
    const flowId = randomUUID();
    const old = 'o'.repeat(40);
    const next = 'n'.repeat(40);
    const stored = hmacCode(old, flowId, '123456');
    expect(codeMatchesHmac([old, next], flowId, '123456', stored)).toBe(true);
    expect(codeMatchesHmac([next, old], flowId, '123456', stored)).toBe(true);
    expect(codeMatchesHmac([next], flowId, '123456', stored)).toBe(false);
    expect(codeMatchesHmac([next, old], flowId, '654321', stored)).toBe(false);
  });
});
