import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceLogger } from '@acme/service-kit/logging';
import { metricsText } from '@acme/service-kit/metrics';
import { startManagementServer, type ManagementServer } from '@acme/service-kit/management';
import { serveApp, type ServedApp } from './serve.ts';
import { createAccountTelemetry, routeOf, type AccountTelemetry } from './telemetry.ts';

let dist: string;
let app: ServedApp;
let telemetry: AccountTelemetry;
let management: ManagementServer;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'account-dist-'));
  await mkdir(join(dist, 'assets'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>SPA</title>');
  await writeFile(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  telemetry = createAccountTelemetry({
    logLevel: 'info',
    logger: createServiceLogger('account', 'info', { destination }),
  });
  app = await serveApp({ port: 0, application: 'platform', distDir: dist, telemetry });
  management = await startManagementServer({
    host: '127.0.0.1',
    port: 0,
    metrics: telemetry.metrics,
    db: undefined,
  });
});

afterAll(async () => {
  await app.close();
  await management.close();
  telemetry.metrics.close();
  await rm(dist, { recursive: true, force: true });
});

describe('the account app server, observed', () => {
  it('logs one JSON line per request with its request id, the path and never the query string', async () => {
    const id = 'req-account-telemetry-1';
    const res = await fetch(`${app.url}/account/callback?code=secret-code&state=s3cret`, {
      headers: { 'x-request-id': id },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    await new Promise((r) => setTimeout(r, 50));
    const line = lines.find((l) => l.requestId === id);
    expect(line).toMatchObject({
      name: 'account',
      msg: 'request completed',
      req: { method: 'GET', url: '/account/callback' },
      res: { statusCode: 200 },
      application: 'platform',
    });
    expect(JSON.stringify(lines)).not.toContain('secret-code');
    // A request without an id gets a new one, echoed.
    const fresh = await fetch(`${app.url}/account/settings`);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('times requests by application and a bounded route label, served on its management listener', async () => {
    await fetch(`${app.url}/account/assets/index-abc.js`);
    await fetch(`${app.url}/account/runtime-config.js`);
    await fetch(`${app.url}/no/such/thing?token=abc`);
    const res = await fetch(`${management.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const route of ['/account/*', '/account/assets/*', '/account/runtime-config.js', 'other'])
      expect(text).toMatch(
        new RegExp(
          `http_request_duration_seconds_count\\{[^}]*listener="platform"[^}]*route="${route.replace(/[.*/]/g, '\\$&')}"`,
        ),
      );
    expect(text).toContain('service="account"');
    expect(text).toContain('# TYPE process_cpu_seconds_total ');
    expect(text).not.toContain('/no/such/thing');
    expect(text).not.toContain('secret-code');
    expect((await metricsText(telemetry.metrics)).text).toContain('http_request_duration_seconds');
  });

  it('is ready with no database until it drains, and 404s anything but its three routes', async () => {
    expect((await fetch(`${management.url}/health/ready`)).status).toBe(200);
    expect((await fetch(`${management.url}/account/login`)).status).toBe(404);
    management.drain();
    expect((await fetch(`${management.url}/health/ready`)).status).toBe(503);
  });

  it('keeps the route label set bounded whatever the path', () => {
    expect(routeOf('/account/assets/x-1.js')).toBe('/account/assets/*');
    expect(routeOf('/account/anything/deep')).toBe('/account/*');
    expect(routeOf('/account')).toBe('/account/*');
    expect(routeOf('/research')).toBe('other');
  });
});
