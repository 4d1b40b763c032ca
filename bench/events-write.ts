// What writing security events costs password sign-in (issue 24): two identity services, each on its
// own PGlite (temp dir), one writing its events (the default) and one with the writer a no-op
// (IDENTITY_SECURITY_EVENTS=off, a switch for this bench only, refused in production). Password
// logins (create flow + submit, argon2id) run against each in turn, in `rounds` interleaved rounds
// whose order alternates, so drift on a shared machine falls on both sides alike. Reports the median
// logins per second of each side and the cost: the median over rounds of 1 − on / off. Goal: ≤ 5 %.
// Not in the default `npm run bench` set: `BENCH_ONLY=events-write npm run bench`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, sql, type Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start } from '@acme/identity';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { runLoadChild } from './load/child.ts';

const EMAIL = 'bench-events@example.com';
const PASSWORD = 'bench passphrase for events 1';

interface Side {
  name: 'on' | 'off';
  publicUrl: string;
  db: Database;
  close(): Promise<void>;
}

async function startSide(name: 'on' | 'off'): Promise<Side> {
  const dir = await mkdtemp(join(tmpdir(), `events-write-${name}-`));
  const db = await createDb({ dataDir: dir });
  const [pub, adm] = [await freePort(), await freePort()];
  const service = await start({
    db,
    logger: false,
    env: {
      IDENTITY_PUBLIC_PORT: String(pub),
      IDENTITY_ADMIN_PORT: String(adm),
      IDENTITY_MANAGEMENT_PORT: '0',
      IDENTITY_PUBLIC_URL: `http://127.0.0.1:${pub}`,
      IDENTITY_ADMIN_URL: `http://127.0.0.1:${adm}`,
      IDENTITY_IP_FAILURE_LIMIT: '1000000',
      // 16 logins of one account in flight are each counted before their hash (throttle/attempts.ts),
      // so the lockout would refuse some: out of the way here, as the IP limit is.
      IDENTITY_LOCKOUT_THRESHOLD: '1000000',
      IDENTITY_SECURITY_EVENTS: name,
    },
  });
  await createIdentityAdminClient({ baseUrl: `http://127.0.0.1:${adm}` }).createIdentity({
    schema_id: 'default',
    traits: { email: EMAIL, name: { first: 'Bench', last: 'Events' } },
    credentials: { password: { config: { password: PASSWORD } } },
    verifiable_addresses: [{ value: EMAIL, verified: true, via: 'email' }],
  });
  return {
    name,
    publicUrl: `http://127.0.0.1:${pub}`,
    db,
    async close() {
      await service.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function benchEventsWrite(options: {
  durationSec: number;
  connections: number;
  rounds: number;
}) {
  const on = await startSide('on');
  const off = await startSide('off');
  try {
    const concurrency = Math.max(1, Math.min(options.connections, 16));
    const rate = async (side: Side, durationSec: number) => {
      const r = await runLoadChild<{ latencies: number[]; failures: number; elapsedSec: number }>(
        'password-logins',
        { publicUrl: side.publicUrl, email: EMAIL, password: PASSWORD, durationSec, concurrency },
      );
      if (r.failures > 0) throw new Error(`${r.failures} logins failed (events ${side.name})`);
      return r.latencies.length / r.elapsedSec;
    };
    // Warm-up of both (JIT, the hashing pool, PGlite's caches), not reported.
    for (const side of [on, off]) await rate(side, Math.min(3, options.durationSec));
    const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let round = 0; round < options.rounds; round++) {
      for (const side of round % 2 ? [off, on] : [on, off]) {
        rates[side.name].push(await rate(side, options.durationSec));
      }
    }
    const count = async (side: Side) =>
      (
        await sql<{ n: number }>`select count(*)::int as n from identity_security_events`.execute(
          side.db.kysely,
        )
      ).rows[0]!.n;
    const round1 = (n: number) => Math.round(n * 10) / 10;
    const onRate = median(rates.on);
    const offRate = median(rates.off);
    // Each round's two runs are adjacent in time: the median of their ratios is robust to the
    // machine's load changing between rounds.
    const pairCost = median(rates.on.map((r, i) => 1 - r / rates.off[i]!)) * 100;
    return {
      loginsPerSecOn: round1(onRate),
      loginsPerSecOff: round1(offRate),
      costPercent: round1(pairCost),
      costOfMediansPercent: round1((1 - onRate / offRate) * 100),
      perRound: { on: rates.on.map(round1), off: rates.off.map(round1) },
      eventsWrittenOn: await count(on),
      eventsWrittenOff: await count(off),
      concurrency,
      rounds: options.rounds,
      goal: 'cost ≤ 5 % of password-login throughput',
    };
  } finally {
    await on.close();
    await off.close();
  }
}
