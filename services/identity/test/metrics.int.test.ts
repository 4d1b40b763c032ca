import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, migrateMail, outboxBacklog } from '@acme/mail';
import { registerOutboxMetrics } from '@acme/service-kit/metrics';
import {
  Browser,
  createUser,
  csrfOf,
  login,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from './harness.ts';

let h: Harness;
const email = 'mary@example.com';

beforeAll(async () => {
  h = await startHarness();
  await createUser(h, email);
});
afterAll(() => h.close());

async function scrape(base: string) {
  const res = await fetch(`${base}/metrics`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The value of one sample line, e.g. `identity_login_total{method="password",outcome="success",...}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find(
      (l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it('on the management listener counts logins by outcome and times requests by route pattern', async () => {
    expect((await login(new Browser(h.publicUrl), email)).status).toBe(200);
    expect((await login(new Browser(h.publicUrl), email, 'wrong password, clearly')).status).toBe(400);
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<{ id: string; ui: { nodes: { attributes: object }[] } }>(b, 'recovery');
    const sent = await submitFlow(b, 'recovery', flow, { method: 'code', email, csrf_token: csrfOf(flow) });
    expect(sent.status).toBe(200);

    const m = await scrape(h.managementUrl);
    expect(m.status).toBe(200);
    expect(m.type).toContain('text/plain');
    // prom-client's default process metrics, beside the service's own.
    for (const name of [
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(m.text).toContain(`# TYPE ${name} `);
    expect(sample(m.text, 'identity_login_total', { method: 'password', outcome: 'success' })).toBe(1);
    expect(sample(m.text, 'identity_login_total', { method: 'password', outcome: 'failure' })).toBe(1);
    expect(sample(m.text, 'identity_recovery_total', { method: 'code', outcome: 'continued' })).toBe(1);
    for (const name of [
      'identity_second_factor_total',
      'identity_password_hash_queue_depth',
      'identity_password_hash_active',
      'event_loop_delay_seconds',
      'http_request_duration_seconds',
    ])
      expect(m.text).toContain(`# TYPE ${name} `);
    expect(sample(m.text, 'identity_password_hash_queue_depth', {})).toBe(0);
    // The route pattern, never the raw URL with its flow id.
    const count = sample(m.text, 'http_request_duration_seconds_count', {
      listener: 'public',
      method: 'POST',
      route: '/self-service/login',
      status_code: '200',
    });
    expect(count).toBe(1);
    expect(m.text).not.toMatch(/route="[^"]*\?flow=/);
    expect(
      sample(m.text, 'http_request_duration_seconds_count', { route: '/admin/identities', method: 'POST' }),
    ).toBe(1);
    expect(m.text).toContain('service="identity"');
    // On PostgreSQL (TEST_DB=postgres) the connection pool is measured; PGlite has none.
    if (h.db.kind === 'postgres') {
      expect(sample(m.text, 'db_pool_connections', { state: 'max' })).toBe(10);
      expect(sample(m.text, 'db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    } else {
      expect(m.text).not.toContain('db_pool_connections');
    }
  });

  it('is served neither on the public listener nor on the admin listener', async () => {
    for (const base of [h.publicUrl, h.adminUrl]) {
      const m = await scrape(base);
      expect(m.status).toBe(404);
      expect(m.text).not.toContain('identity_login_total');
    }
  });

  it('keeps two instances in one process apart (a registry each)', async () => {
    const other = await startHarness();
    try {
      const m = await scrape(other.managementUrl);
      expect(m.status).toBe(200);
      expect(sample(m.text, 'identity_login_total', { outcome: 'success' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('counts a lockout once when failed passwords start it, never naming the account or the password', async () => {
    const locking = await startHarness({ IDENTITY_LOCKOUT_THRESHOLD: '3' });
    try {
      const who = 'locked.out@example.com';
      await createUser(locking, who);
      const wrong = 'not the password, 5up3r-wrong';
      for (let i = 0; i < 4; i++) await login(new Browser(locking.publicUrl), who, wrong);
      const m = await scrape(locking.managementUrl);
      expect(sample(m.text, 'identity_lockouts_total', { factor: 'password' })).toBe(1);
      expect(m.text).not.toContain(who);
      expect(m.text).not.toContain(wrong);
    } finally {
      await locking.close();
    }
  });

  it('reports the mail outbox waiting to be sent (the wiring `start` does), never a recipient or a code', async () => {
    await migrateMail(h.db);
    registerOutboxMetrics(h.app.ctx.metrics.service, { backlog: () => outboxBacklog(h.db, h.clock) });
    const mailer = createMailer({ db: h.db, clock: h.clock });
    // Not digits alone: a six-digit code can occur inside a metric's value (a byte count, a sum).
    const code = `code-${randomBytes(6).toString('hex')}`;
    await mailer.enqueue({
      to: 'queued@example.com',
      subject: 'Your code',
      text: code,
      html: `<p>${code}</p>`,
    });
    h.clock.advance(90_000);
    const m = await scrape(h.managementUrl);
    expect(sample(m.text, 'mail_outbox_depth', {})).toBeGreaterThanOrEqual(1);
    expect(sample(m.text, 'mail_outbox_oldest_age_seconds', {})).toBeGreaterThanOrEqual(90);
    expect(m.text).not.toContain('queued@example.com');
    expect(m.text).not.toContain(code);
  });
});
