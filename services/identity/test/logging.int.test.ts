import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceLogger } from '@acme/service-kit/logging';
import { redactPaths } from '../src/index.ts';
import {
  Browser,
  createUser,
  csrfOf,
  lastCode,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from './harness.ts';

// Every line the service logs (trace level: everything), as a production process would write them.
const lines: string[] = [];
const logger = createServiceLogger('identity', 'trace', {
  redact: redactPaths,
  destination: { write: (s: string) => lines.push(s) },
});

let h: Harness;
let identityId: string;
const email = 'ada.logs@example.com';
const PASSWORD = 'Zebra Quartz Lantern 8841';
const REQUEST_ID = 'login-trace-7f3e9a2b';

beforeAll(async () => {
  h = await startHarness({}, undefined, { logger });
  identityId = await createUser(h, email, PASSWORD);
});
afterAll(() => h.close());

const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
/** The value as a token of its own (six-digit codes must not be mistaken for parts of timestamps). */
const appears = (value: string) =>
  new RegExp(`(^|[^0-9A-Za-z.])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^0-9A-Za-z.]|$)`).test(
    lines.join('\n'),
  );

describe('logs', () => {
  it('carry the request id of a login on every line and never the password or the session', async () => {
    const b = new Browser(h.publicUrl);
    const started = await b.get('/self-service/login/browser', {
      accept: 'json',
      headers: { 'x-request-id': REQUEST_ID },
    });
    expect(started.headers.get('x-request-id')).toBe(REQUEST_ID);
    const res = await b.post(`/self-service/login?flow=${started.body.id}`, {
      json: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(started.body) },
      accept: 'json',
      headers: { 'x-request-id': REQUEST_ID },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(REQUEST_ID);
    const session = [...b.cookies].find(([name]) => name.includes('session'))?.[1];
    expect(session).toBeTruthy();

    const whoami = await b.get('/sessions/whoami', {
      headers: { authorization: 'Bearer bearer-secret-4d2c1b0a' },
    });
    expect(whoami.status).toBe(401);
    const generated = whoami.headers.get('x-request-id');
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);

    const mine = parsed().filter((l) => l.requestId === REQUEST_ID);
    expect(mine.filter((l) => l.msg === 'incoming request')).toHaveLength(2);
    expect(mine.filter((l) => l.msg === 'request completed')).toHaveLength(2);
    expect(parsed().some((l) => l.requestId === generated)).toBe(true);
    // Every line written while handling a request names it.
    expect(parsed().filter((l) => l.req !== undefined && l.requestId === undefined)).toEqual([]);

    expect(appears(PASSWORD)).toBe(false);
    expect(appears(session!)).toBe(false);
    expect(appears('bearer-secret-4d2c1b0a')).toBe(false);
  });

  it('never contain recovery codes, their links, or secrets in query strings', async () => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<{ id: string; ui: { nodes: { attributes: object }[] } }>(b, 'recovery');
    const sent = await submitFlow(b, 'recovery', flow, { method: 'code', email, csrf_token: csrfOf(flow) });
    expect(sent.status).toBe(200);
    const code = lastCode(h, email);
    const checked = await submitFlow(b, 'recovery', flow, {
      method: 'code',
      code,
      csrf_token: csrfOf(flow),
    });
    expect([200, 422]).toContain(checked.status);

    const adminCode = await fetch(`${h.adminUrl}/admin/recovery/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity_id: identityId }),
    });
    expect(adminCode.status).toBe(201);
    const { recovery_code, recovery_link } = (await adminCode.json()) as Record<string, string>;
    const linkToken = new URL(recovery_link!).searchParams.get('token') ?? recovery_link!;

    await fetch(
      `${h.publicUrl}/self-service/login/browser?code=qs-code-5a5a5a&state=qs-state-6b6b6b&token=qs-token-7c7c7c`,
      { headers: { accept: 'application/json' }, redirect: 'manual' },
    );
    await fetch(`${h.publicUrl}/self-service/logout?token=qs-logout-8d8d8d`, { redirect: 'manual' });

    for (const secret of [
      code,
      recovery_code!,
      linkToken,
      'qs-code-5a5a5a',
      'qs-state-6b6b6b',
      'qs-token-7c7c7c',
      'qs-logout-8d8d8d',
    ])
      expect(appears(secret), secret).toBe(false);
    // The requests were logged, by path.
    expect(
      parsed().some((l) => (l.req as { url?: string } | undefined)?.url === '/self-service/logout'),
    ).toBe(true);
  });
});
