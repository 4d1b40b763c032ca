import Fastify from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { attachMetrics, createServiceMetrics, metricsText, registerOutboxMetrics } from './metrics.ts';

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

  it('labels requests with the route pattern and serves /metrics on neither the public nor the admin app', async () => {
    const metrics = createServiceMetrics('svc');
    const pub = Fastify();
    const admin = Fastify();
    pub.get('/things/:id', async () => ({ ok: true }));
    attachMetrics(metrics, { public: pub, admin });
    await Promise.all([pub.ready(), admin.ready()]);
    expect((await pub.inject('/things/42?token=abc')).statusCode).toBe(200);
    expect((await pub.inject('/metrics')).statusCode).toBe(404);
    expect((await admin.inject('/metrics')).statusCode).toBe(404);
    const { contentType, text } = await metricsText(metrics);
    expect(contentType).toContain('text/plain');
    expect(text).toContain('route="/things/:id"');
    expect(text).toContain('route="unmatched"');
    // The raw path and its query never become a label. (A bare "42" can appear in any sample
    // value, such as an event-loop delay of 0.0042 s, so the check is on the path and the token.)
    expect(text).not.toContain('/things/42');
    expect(text).not.toMatch(/token="|abc/);
    await Promise.all([pub.close(), admin.close()]);
  });

  it('reports the mail outbox: depth and oldest age in one read per scrape, and the worker failures', async () => {
    const metrics = createServiceMetrics('svc');
    let reads = 0;
    let failures = 3;
    registerOutboxMetrics(metrics, {
      backlog: async () => {
        reads++;
        return { depth: 7, oldestAgeSeconds: 42.5 };
      },
      failures: () => failures,
    });
    try {
      const text = await metrics.registry.metrics();
      expect(text).toContain('mail_outbox_depth{service="svc"} 7');
      expect(text).toContain('mail_outbox_oldest_age_seconds{service="svc"} 42.5');
      expect(text).toContain('mail_outbox_failures_total{service="svc"} 3');
      expect(reads).toBe(1);
      failures = 5;
      expect(await metrics.registry.metrics()).toContain('mail_outbox_failures_total{service="svc"} 5');
    } finally {
      metrics.close();
    }
  });
});
