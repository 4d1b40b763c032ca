import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, DEMO_PASSWORD, createUser, newLoginFlow, startHarness, type Harness } from '../harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await createUser(h, 'origin@example.com');
});
afterAll(() => h.close());

describe('opaque origins', () => {
  it('a state-changing browser request with Origin: null is refused', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    const body = {
      method: 'password',
      identifier: 'origin@example.com',
      password: DEMO_PASSWORD,
      csrf_token: csrf,
    };
    const refused = await b.post(`/self-service/login?flow=${flow.id}`, {
      json: body,
      accept: 'json',
      headers: { origin: 'null' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.id).toBe('security_csrf_violation');
    expect(refused.body.error.details.reject_reason).toMatch(/Origin: null/);
    expect(b.cookies.has(`ory_kratos_session`)).toBe(false);
    const del = await b.request('DELETE', '/sessions', { accept: 'json', headers: { origin: 'null' } });
    expect(del.status).toBe(403);
    // The same request from the app's origin (or with no Origin) goes through.
    const ok = await b.post(`/self-service/login?flow=${flow.id}`, {
      json: body,
      accept: 'json',
      headers: { origin: 'http://localhost:4000' },
    });
    expect(ok.status, ok.text).toBe(200);
    // Reading is not state-changing.
    expect((await b.get('/sessions/whoami', { accept: 'json', headers: { origin: 'null' } })).status).toBe(
      200,
    );
  });
});
