import { sql } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { describe, expect, it } from 'vitest';
import { deleteIdleGrants } from '../src/adapter/postgres-adapter.ts';
import { exchangeCode, refresh, signIn, useTestServer } from './harness.ts';

const HOUR = 3600_000;
const IDLE_HOURS = 24;
const GRACE_SECONDS = 5;
const clock = new FakeClock();
const server = useTestServer({
  clock,
  env: {
    OAUTH2_IDLE_GRANT_RETENTION_HOURS: String(IDLE_HOURS),
    OAUTH2_REFRESH_GRACE_SECONDS: String(GRACE_SECONDS),
  },
});

const cleanup = (batchSize?: number) =>
  deleteIdleGrants(
    server.db,
    clock,
    { idleHours: IDLE_HOURS, refreshGraceSeconds: GRACE_SECONDS },
    batchSize,
  );

/** The subject's stored grants and consent sessions. */
async function storedOf(subject: string) {
  const grants = (
    await sql<{ id: string }>`
      select id from oauth2_models where model = 'Grant' and payload->>'accountId' = ${subject}`.execute(
      server.db.kysely,
    )
  ).rows.map((r) => r.id);
  const consents = (
    await sql<{ grant_id: string }>`
      select grant_id from oauth2_consent_sessions where grant_id = any(${grants}::text[])`.execute(
      server.db.kysely,
    )
  ).rows;
  return { grants, consents: consents.length };
}

async function tokensFor(subject: string) {
  const { callback, verifier } = await signIn(server, { subject });
  const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return res.body.refresh_token as string;
}

describe('idle grants (OAUTH2_IDLE_GRANT_RETENTION_HOURS)', () => {
  it('a grant none of whose codes or tokens is live goes with its consent session once it is past the retention', async () => {
    // Consent given, the code never exchanged: the grant's only code expires after a minute.
    await signIn(server, { subject: 'idle-1' });
    expect(await storedOf('idle-1')).toEqual({ grants: [expect.any(String)], consents: 1 });

    clock.advance((IDLE_HOURS - 1) * HOUR);
    await cleanup();
    expect((await storedOf('idle-1')).grants).toHaveLength(1);

    clock.advance(2 * HOUR);
    expect(await cleanup()).toBeGreaterThanOrEqual(1);
    expect(await storedOf('idle-1')).toEqual({ grants: [], consents: 0 });
  });

  it('a grant with a live refresh token stays, and the refresh still works after the cleanup', async () => {
    const token = await tokensFor('live-1');
    clock.advance((IDLE_HOURS + 1) * HOUR);
    await cleanup();
    expect(await storedOf('live-1')).toEqual({ grants: [expect.any(String)], consents: 1 });

    const res = await refresh(server, token);
    expect(res.status).toBe(200);
    expect((await refresh(server, res.body.refresh_token as string)).status).toBe(200);
  });

  it('a refresh after its grant was deleted fails with invalid_grant, not a server error', async () => {
    const token = await tokensFor('gone-1');
    const { grants } = await storedOf('gone-1');
    await sql`delete from oauth2_models where model = 'Grant' and id = any(${grants}::text[])`.execute(
      server.db.kysely,
    );
    const res = await refresh(server, token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('a grant whose last refresh token expired goes, and that token then gets invalid_grant', async () => {
    const token = await tokensFor('expired-1');
    const stored = await storedOf('expired-1');
    // The refresh token ends before the grant does (OAUTH2_REFRESH_TOKEN_TTL, 30 days).
    clock.advance(31 * 24 * HOUR);
    await cleanup();
    expect(await storedOf('expired-1')).toEqual({ grants: [], consents: 0 });
    expect(stored.grants).toHaveLength(1);
    const res = await refresh(server, token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  // Fifty authorizations first, one after another: seconds on a quiet machine, more while the
  // suite's other stages share the two cores.
  it('a cleanup during 50 parallel refreshes loses none of their grants', { timeout: 90_000 }, async () => {
    const subjects = Array.from({ length: 50 }, (_, i) => `parallel-${i}`);
    const tokens: string[] = [];
    for (const subject of subjects) tokens.push(await tokensFor(subject));
    clock.advance((IDLE_HOURS + 1) * HOUR);

    const [refreshed] = await Promise.all([
      Promise.all(tokens.map((t) => refresh(server, t))),
      cleanup(3),
      cleanup(7),
    ]);
    expect(refreshed.map((r) => r.status)).toEqual(tokens.map(() => 200));
    await cleanup(5);
    for (const subject of subjects) expect((await storedOf(subject)).grants, subject).toHaveLength(1);
    const again = await Promise.all(refreshed.map((r) => refresh(server, r.body.refresh_token as string)));
    expect(again.map((r) => r.status)).toEqual(tokens.map(() => 200));
  });
});
