import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@acme/db';
import { Browser, createUser, newLoginFlow, startHarness, submitFlow, type Harness } from '../../harness.ts';

/**
 * The database statements of a password login, counted at the database handle: creating the flow
 * and submitting the password (admit the attempt on its counters and find the credential, in one
 * statement; settle the attempt after the right password; the session with the flow's completion)
 * stay within a small, fixed number. The settle is the price of counting before the hash is checked
 * (docs/security.md, "the lockout holds under concurrency"). Each statement is a round trip to the
 * database, and on PGlite a turn of the one connection every service shares.
 */
const statements: string[] = [];
let counting = false;
/** The statement's kind and first table (or the start of a raw statement), for the failure message. */
const describeStatement = (node: { kind: string }) =>
  `${node.kind} ${JSON.stringify(node).match(/"IdentifierNode","name":"(\w+)"/)?.[1] ?? ''}`.trim();
// Counted when a result comes back: a query builder embedded in plain SQL (a CTE) is transformed
// too, but is part of its statement, not one of its own.
const described = new WeakMap<object, string>();
const counter: KyselyPlugin = {
  transformQuery(args) {
    described.set(args.queryId, describeStatement(args.node));
    return args.node;
  },
  async transformResult(args) {
    if (counting) statements.push(described.get(args.queryId) ?? '?');
    return args.result;
  },
};

let h: Harness;
beforeAll(async () => {
  const db = await createTestDb();
  const { FakeClock } = await import('@acme/db/clock');
  h = await startHarness(
    {},
    { db: { ...db, kysely: db.kysely.withPlugin(counter) }, clock: new FakeClock(new Date()) },
  );
});
afterAll(async () => {
  await h?.close();
  await h?.db.close();
});

async function measured<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  statements.length = 0;
  counting = true;
  try {
    const result = await run();
    return { result, statements: [...statements] };
  } finally {
    counting = false;
  }
}

describe('password login database statements', () => {
  it('a login makes at most 5 statements: 1 to create the flow, 4 to submit the password', async () => {
    const email = 'counted@example.com';
    await createUser(h, email);
    const b = new Browser(h.publicUrl);
    const created = await measured(() => newLoginFlow(b));
    const submitted = await measured(() =>
      submitFlow(b, 'login', created.result.flow as { id: string }, {
        method: 'password',
        identifier: email,
        password: 'correct horse battery staple 42',
        csrf_token: created.result.csrf,
      }),
    );
    expect(submitted.result.status, submitted.result.text).toBe(200);
    // The session written by the combined statement is there.
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
    expect(created.statements.length, created.statements.join(', ')).toBeLessThanOrEqual(1);
    // Load the flow; admit the attempt and read the credential; settle the attempt; create the
    // session, loading its identity.
    expect(submitted.statements.length, submitted.statements.join(', ')).toBeLessThanOrEqual(4);
  });
});
