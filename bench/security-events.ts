// The security event log under volume (issue 24): `events` events (default 1 million) in one
// in-memory PGlite, spread over 10 organisations and 1,000 people each, then the console's
// "filter by person" listing (the first page, 51 rows) timed `samples` times for random people.
// Reports p50/p95 and whether the plan uses the (organisation, subject, time) index.
// Not in the default `npm run bench` set: `BENCH_ONLY=events npm run bench`.
import { performance } from 'node:perf_hooks';
import { createDb, migrate, sql, typed } from '@acme/db';
import { migrations } from '@acme/users';
import { listEvents } from '../services/users/src/events/events.ts';
import type { UsersDb } from '../services/users/src/db-types.ts';

const ORGANISATIONS = 10;
const PEOPLE = 1_000;
const INSERT_BATCH = 100_000;

const orgId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const personId = (org: number, n: number) =>
  `00000000-${String(org).padStart(4, '0')}-4000-8000-${String(n).padStart(12, '0')}`;

export async function benchSecurityEvents(options: { events: number; samples: number }) {
  const db = await createDb();
  try {
    await migrate(db, 'users', migrations);
    const started = performance.now();
    for (let from = 0; from < options.events; from += INSERT_BATCH) {
      const to = Math.min(options.events, from + INSERT_BATCH) - 1;
      await sql`
        insert into security_events (id, organisation_id, occurred_at, type, actor_kind, subject_id, details)
        select gen_random_uuid(),
               ('00000000-0000-4000-8000-' || lpad((i % ${ORGANISATIONS})::text, 12, '0'))::uuid,
               timestamptz '2026-01-01' + (i || ' seconds')::interval,
               'member.unlocked', 'system',
               ('00000000-' || lpad((i % ${ORGANISATIONS})::text, 4, '0') || '-4000-8000-'
                 || lpad(((i / ${ORGANISATIONS}) % ${PEOPLE})::text, 12, '0'))::uuid,
               '{}'::jsonb
        from generate_series(${from}::int, ${to}::int) as i`.execute(db.kysely);
    }
    await sql`analyze security_events`.execute(db.kysely);
    const loadSeconds = (performance.now() - started) / 1000;

    const kysely = typed<UsersDb>(db);
    const timings: number[] = [];
    let rows = 0;
    for (let i = 0; i < options.samples; i += 1) {
      const org = i % ORGANISATIONS;
      const filter = { organisationId: orgId(org), subjectId: personId(org, (i * 7919) % PEOPLE), limit: 51 };
      const t0 = performance.now();
      rows += (await listEvents(kysely, filter)).length;
      timings.push(performance.now() - t0);
    }
    timings.sort((a, b) => a - b);
    const at = (q: number) =>
      Number(timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.toFixed(2));
    const plan = await sql<{ 'QUERY PLAN': string }>`
      explain select * from security_events
      where organisation_id = ${orgId(1)} and subject_id = ${personId(1, 5)}
      order by occurred_at desc, id desc limit 51`.execute(db.kysely);
    const planText = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    return {
      events: options.events,
      samples: options.samples,
      loadSeconds: Number(loadSeconds.toFixed(1)),
      rowsPerQuery: rows / options.samples,
      p50Ms: at(0.5),
      p95Ms: at(0.95),
      usesIndex: planText.includes('security_events_subject_time'),
      goal: 'p95 ≤ 50 ms with the index',
    };
  } finally {
    await db.close();
  }
}
