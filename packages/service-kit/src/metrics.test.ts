import Fastify from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { attachMetrics, createServiceMetrics } from './metrics.ts';

describe('service metrics', () => {
  it('reports the database pool and event-loop delay, in a registry of its own', async () => {
    const db = {
      kind: 'postgres',
      poolStats: () => ({ total: 4, idle: 1, waiting: 2, max: 10 }),
    } as unknown as Database;
    const a = createServiceMetrics('a', { db });
    const b = createServiceMetrics('b');
    try {
      const text = await a.registry.metrics();
      expect(text).toContain('db_pool_connections{state="total",service="a"} 4');
      expect(text).toContain('db_pool_connections{state="idle",service="a"} 1');
      expect(text).toContain('db_pool_waiting_requests{service="a"} 2');
      expect(text).toMatch(/event_loop_delay_seconds\{quantile="0\.99",service="a"\} \d/);
      // Same metric names in another registry: no clash, and no pool gauges without a pool.
      const other = await b.registry.metrics();
      expect(other).toContain('http_request_duration_seconds');
      expect(other).not.toContain('db_pool_connections');
    } finally {
      a.close();
      b.close();
    }
  });

  it("reports the process's memory, and the PGlite worker thread's on its own", async () => {
    const db = await createTestDb();
    // Kysely opens (and so closes) its driver at the first query only.
    await sql`select 1`.execute(db.kysely);
    const metrics = createServiceMetrics('svc', { db });
    try {
      const text = await metrics.registry.metrics();
      const value = (name: string, kind: string) =>
        Number(new RegExp(`^${name}\\{kind="${kind}",service="svc"\\} (\\d+)$`, 'm').exec(text)?.[1]);
      for (const kind of ['rss', 'heap_used', 'heap_total', 'external', 'array_buffers'])
        expect(value('process_memory_bytes', kind)).toBeGreaterThan(0);
      // The worker's heap is its own isolate's, not the main thread's.
      expect(value('pglite_worker_memory_bytes', 'heap_used')).toBeGreaterThan(0);
      expect(value('pglite_worker_memory_bytes', 'heap_used')).not.toBe(
        value('process_memory_bytes', 'heap_used'),
      );
      // PostgreSQL's WebAssembly memory: at least its initial 128 MiB (see pglite-worker.ts).
      expect(value('pglite_worker_memory_bytes', 'wasm')).toBeGreaterThanOrEqual(128 * 1024 * 1024);
      expect(value('process_memory_bytes', 'rss')).toBeGreaterThan(
        value('pglite_worker_memory_bytes', 'heap_used'),
      );
    } finally {
      metrics.close();
      await db.close();
    }
    // Once the database is closed, the worker's figures are left out rather than failing the scrape.
    const after = createServiceMetrics('svc', { db });
    const closed = await after.registry.metrics();
    expect(closed).toContain('process_memory_bytes{kind="rss"');
    expect(closed).not.toContain('pglite_worker_memory_bytes{kind=');
    after.close();
  });

  it('labels requests with the route pattern and serves /metrics on the admin app only', async () => {
    const metrics = createServiceMetrics('svc');
    const pub = Fastify();
    const admin = Fastify();
    pub.get('/things/:id', async () => ({ ok: true }));
    attachMetrics(metrics, { public: pub, admin });
    await Promise.all([pub.ready(), admin.ready()]);
    expect((await pub.inject('/things/42?token=abc')).statusCode).toBe(200);
    expect((await pub.inject('/metrics')).statusCode).toBe(404);
    const res = await admin.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('route="/things/:id"');
    expect(res.body).toContain('route="unmatched"');
    // The raw path and its query never become a label. (A bare "42" can appear in any sample
    // value, such as an event-loop delay of 0.0042 s, so the check is on the path and the token.)
    expect(res.body).not.toContain('/things/42');
    expect(res.body).not.toContain('token');
    expect(res.body).not.toContain('abc');
    await Promise.all([pub.close(), admin.close()]);
  });
});
