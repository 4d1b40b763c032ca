import { createTestDb, type Database } from '@acme/db';
import type { KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { exchangeCode, refresh, signIn, useTestServer } from './harness.ts';

/**
 * The token endpoint's database round trips, counted at the database handle: at most 3 for a
 * code exchange and 3 for a refresh (read the client, which lives in the database like every
 * client so that a change holds on every instance at the next request; find the credential with
 * its grant and consent; write).
 */
const statements: string[] = [];
let counting = false;
const counter: KyselyPlugin = {
  transformQuery(args) {
    if (counting) statements.push(args.node.kind);
    return args.node;
  },
  async transformResult(args) {
    return args.result;
  },
};

async function countingDb(): Promise<Database> {
  const db = await createTestDb();
  return { ...db, kysely: db.kysely.withPlugin(counter) };
}

const server = useTestServer({ db: await countingDb() });

async function measured<T>(run: () => Promise<T>): Promise<{ result: T; roundTrips: number }> {
  statements.length = 0;
  counting = true;
  try {
    const result = await run();
    return { result, roundTrips: statements.length };
  } finally {
    counting = false;
  }
}

describe('token endpoint database round trips', () => {
  it('a code exchange makes at most 3 database round trips', async () => {
    const { callback, verifier } = await signIn(server);
    const { result, roundTrips } = await measured(() =>
      exchangeCode(server, callback.searchParams.get('code')!, verifier),
    );
    expect(result.status).toBe(200);
    expect(roundTrips).toBeLessThanOrEqual(3);
  });

  it('a refresh makes at most 3 database round trips', async () => {
    const { callback, verifier } = await signIn(server);
    const tokens = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    const { result, roundTrips } = await measured(() => refresh(server, tokens.body.refresh_token as string));
    expect(result.status).toBe(200);
    expect(roundTrips).toBeLessThanOrEqual(3);
  });
});
