import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@acme/test-kit/free-port';

// The identity service as its own process (src/main.ts, in-memory database), the way it runs in
// production, so that SIGTERM reaches a real process.
const root = join(import.meta.dirname, '..', '..', '..');
let child: ChildProcess;
let exited: Promise<{ code: number | null; at: number }>;
let publicPort: number;
let adminPort: number;
let managementPort: number;
let stderr = '';

beforeAll(async () => {
  [publicPort, adminPort, managementPort] = [await freePort(), await freePort(), await freePort()];
  child = spawn(
    process.execPath,
    ['--import', './packages/service-kit/threadpool.mjs', '--import', 'tsx', 'services/identity/src/main.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: '',
        IDENTITY_DATA_DIR: '',
        IDENTITY_PUBLIC_PORT: String(publicPort),
        IDENTITY_ADMIN_PORT: String(adminPort),
        IDENTITY_MANAGEMENT_PORT: String(managementPort),
        IDENTITY_ADMIN_URL: `http://127.0.0.1:${adminPort}`,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'test',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  exited = new Promise((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${adminPort}/health/alive`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`service did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 90_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `POST /admin/identities` and sends only half of its body: a request in flight, from a slow client. */
function slowRequest() {
  const body = JSON.stringify({
    schema_id: 'default',
    traits: { email: 'slow@example.com', userServiceID: 'usr_slow', name: { first: 'S', last: 'L' } },
  });
  const half = Math.floor(body.length / 2);
  let finish!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: adminPort,
        method: 'POST',
        path: '/admin/identities',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, half));
    finish = () => req.end(body.slice(half));
  });
  return { response, finish: () => finish() };
}

describe('SIGTERM', () => {
  it('is ready on the management listener before the signal', async () => {
    const ready = await fetch(`http://127.0.0.1:${managementPort}/health/ready`);
    expect(ready.status).toBe(200);
  });

  it('stops accepting, finishes the request in flight, and exits 0 within 10 s', async () => {
    const slow = slowRequest();
    await new Promise((r) => setTimeout(r, 300)); // the server has the headers and waits for the body
    const signalled = Date.now();
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));

    // No new connections once draining.
    const fresh = await fetch(`http://127.0.0.1:${publicPort}/health/alive`).then(
      (r) => r.status,
      () => 'refused' as const,
    );
    expect(fresh).toBe('refused');
    expect(child.exitCode).toBeNull(); // still waiting for the slow client
    // The management listener still answers while the process drains: alive, but not ready.
    const management = `http://127.0.0.1:${managementPort}`;
    expect((await fetch(`${management}/health/alive`)).status).toBe(200);
    const ready = await fetch(`${management}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining' });

    slow.finish();
    const answered = await slow.response;
    expect(answered.status, answered.body).toBe(201);
    expect(JSON.parse(answered.body)).toMatchObject({ traits: { email: 'slow@example.com' } });

    const { code, at } = await exited;
    expect(code, stderr).toBe(0);
    expect(at - signalled).toBeLessThan(10_000);
    expect(stderr).toContain('drained');
  }, 30_000);
});
