import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createTestDb, type Database } from '@acme/db';
import { counter, createServiceMetrics, type ServiceMetrics } from './metrics.ts';
import {
  closeWithManagement,
  managementConfig,
  startManagementServer,
  type ManagementServer,
} from './management.ts';

let db: Database;
let metrics: ServiceMetrics;
let management: ManagementServer;

beforeAll(async () => {
  db = await createTestDb();
  metrics = createServiceMetrics('svc');
  counter(metrics, 'svc_things_total', 'Things.', ['outcome']).inc({ outcome: 'success' });
  management = await startManagementServer({ host: '127.0.0.1', port: 0, metrics, db });
});
afterAll(async () => {
  await management.close();
  metrics.close();
  await db.close();
});

const get = (base: string, path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);

describe('the management listener', () => {
  it('answers GET /metrics with the service registry and the default process metrics, with no key', async () => {
    const res = await get(management.url, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('svc_things_total{outcome="success",service="svc"} 1');
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'http_request_duration_seconds',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });

  it('answers GET /health/alive and /health/ready while the database answers', async () => {
    const alive = await get(management.url, '/health/alive');
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: 'ok' });
    const ready = await get(management.url, '/health/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });
    expect(ready.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 404 to any other path, and to any other method on its own paths', async () => {
    for (const path of [
      '/',
      '/admin/identities',
      '/admin/keys/rotate',
      '/health',
      '/health/',
      '/metrics/',
      '//metrics',
      '/health/ready/../../admin/identities',
      '/%2e%2e/admin/identities',
      '/METRICS',
    ]) {
      const res = await get(management.url, path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).toBe('Not Found\n');
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])
      for (const path of ['/metrics', '/health/alive', '/health/ready']) {
        const res = await get(management.url, path, {
          method,
          ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: '{"x":1}' } : {}),
        });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
  });

  it('answers every one of 50 parallel probes of a wrong path with 404', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        get(management.url, `/admin/identities/${i}`, { method: i % 2 ? 'DELETE' : 'GET' }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(answers).toEqual(Array(50).fill(404));
    // And it still answers its own routes afterwards.
    expect((await get(management.url, '/health/ready')).status).toBe(200);
  });

  it('is not ready (503) while it cannot reach its database, and alive all the same', async () => {
    // A PostgreSQL address where nothing listens: the connection is refused.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const unreachable = await createDb({ url: `postgres://acme@127.0.0.1:${port}/acme` });
    const other = await startManagementServer({ host: '127.0.0.1', port: 0, metrics, db: unreachable });
    try {
      const ready = await get(other.url, '/health/ready');
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'database_unreachable' });
      expect((await get(other.url, '/health/alive')).status).toBe(200);
    } finally {
      await other.close();
      await unreachable.close();
    }
  });

  it('is not ready (503) once its database is closed', async () => {
    const own = await createTestDb();
    const other = await startManagementServer({ host: '127.0.0.1', port: 0, metrics, db: own });
    try {
      expect((await get(other.url, '/health/ready')).status).toBe(200);
      await own.close();
      const ready = await get(other.url, '/health/ready');
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'database_unreachable' });
    } finally {
      await other.close();
    }
  });

  it('turns readiness to 503 as soon as the process drains, while the service finishes its requests', async () => {
    const other = await startManagementServer({ host: '127.0.0.1', port: 0, metrics, db });
    expect((await get(other.url, '/health/ready')).status).toBe(200);
    let finishService!: () => void;
    const serviceClosed = new Promise<void>((r) => (finishService = r));
    const closing = closeWithManagement(other, () => serviceClosed);
    const ready = await get(other.url, '/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining' });
    expect((await get(other.url, '/health/alive')).status).toBe(200);
    expect((await get(other.url, '/metrics')).status).toBe(200);
    finishService();
    await closing;
    // Closed after the service: nothing listens any more.
    await expect(get(other.url, '/health/alive')).rejects.toThrow();
  });

  it('reads its port and interface from <PREFIX>_MANAGEMENT_PORT and _HOST, with the default port', () => {
    expect(managementConfig('IDENTITY', 9001, {})).toEqual({ port: 9001, host: '127.0.0.1' });
    expect(
      managementConfig('USERS', 9003, { USERS_MANAGEMENT_PORT: '19003', USERS_MANAGEMENT_HOST: '0.0.0.0' }),
    ).toEqual({ port: 19003, host: '0.0.0.0' });
    expect(() => managementConfig('AGENT', 9004, { AGENT_MANAGEMENT_PORT: '70000' })).toThrow();
  });
});
