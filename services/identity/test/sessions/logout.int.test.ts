import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogoutFlow } from '@ory/client';
import { Browser, createUser, login, startHarness, type Harness } from '../harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ IDENTITY_SESSION_LIFESPAN: '2h' });
  await createUser(h, 'bye@example.com');
});
afterAll(() => h.close());

describe('logout', () => {
  it('GET /self-service/logout/browser needs a session (401)', async () => {
    const res = await new Browser(h.publicUrl).get('/self-service/logout/browser', { accept: 'json' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe(401);
  });

  it('creates a logout URL (allow-listed return_to) and the JSON logout revokes at once (204)', async () => {
    const b = new Browser(h.publicUrl);
    await login(b, 'bye@example.com');
    const returnTo = 'http://localhost:4444/oauth2/sessions/logout';
    const res = await b.get(`/self-service/logout/browser?return_to=${encodeURIComponent(returnTo)}`, {
      accept: 'json',
    });
    expect(res.status).toBe(200);
    const flow = res.body as LogoutFlow;
    expect(flow.logout_token).toMatch(/^ory_lo_/);
    const url = new URL(flow.logout_url);
    expect(`${url.origin}${url.pathname}`).toBe('http://localhost:4433/self-service/logout');
    expect(url.searchParams.get('token')).toBe(flow.logout_token);
    expect(url.searchParams.get('return_to')).toBe(returnTo);
    const forbidden = await b.get(
      `/self-service/logout/browser?return_to=${encodeURIComponent('https://evil.example')}`,
      {
        accept: 'json',
      },
    );
    expect(forbidden.status).toBe(400);
    expect(forbidden.body.error.id).toBe('self_service_flow_return_to_forbidden');

    const out = await b.get(`/self-service/logout?token=${flow.logout_token}`, { accept: 'json' });
    expect(out.status).toBe(204);
    expect(out.setCookies.some((c) => c.startsWith('ory_kratos_session=;'))).toBe(true);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    // The token is single use.
    expect((await b.get(`/self-service/logout?token=${flow.logout_token}`, { accept: 'json' })).status).toBe(
      403,
    );
  });

  it('a browser is redirected to return_to (or the default) after logout', async () => {
    const b = new Browser(h.publicUrl);
    await login(b, 'bye@example.com');
    const sessionToken = b.cookies.get('ory_kratos_session')!;
    const lf = await b.get(
      '/self-service/logout/browser?return_to=http://localhost:4444/oauth2/sessions/logout',
      {
        accept: 'json',
      },
    );
    const res = await b.get(new URL(lf.body.logout_url).pathname + new URL(lf.body.logout_url).search);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('http://localhost:4444/oauth2/sessions/logout');
    const who = await new Browser(h.publicUrl).get('/sessions/whoami', {
      headers: { 'x-session-token': sessionToken },
    });
    expect(who.status).toBe(401);

    await login(b, 'bye@example.com');
    const lf2 = await b.get('/self-service/logout/browser', { accept: 'json' });
    const res2 = await b.get(`/self-service/logout?token=${lf2.body.logout_token}`);
    expect(res2.headers.get('location')).toBe('http://localhost:4000/');
  });

  it('no token: 400; wrong token: 403; forbidden return_to: 400', async () => {
    const b = new Browser(h.publicUrl);
    expect((await b.get('/self-service/logout', { accept: 'json' })).status).toBe(400);
    const wrong = await b.get('/self-service/logout?token=ory_lo_nope', { accept: 'json' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe(403);
    const rt = await b.get('/self-service/logout?token=x&return_to=https%3A%2F%2Fevil.example', {
      accept: 'json',
    });
    expect(rt.status).toBe(400);
  });

  it('sessions expire after the configured lifespan', async () => {
    const b = new Browser(h.publicUrl);
    const res = await login(b, 'bye@example.com');
    expect(
      new Date(res.body.session.expires_at).getTime() - new Date(res.body.session.issued_at).getTime(),
    ).toBe(7200_000);
    h.clock.advance(7200_000 + 1);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('lists and revokes the other sessions (GET/DELETE /sessions, DELETE /sessions/{id}) and logs out API clients', async () => {
    const a = new Browser(h.publicUrl);
    const b = new Browser(h.publicUrl);
    const c = new Browser(h.publicUrl);
    await login(a, 'bye@example.com');
    const sb = await login(b, 'bye@example.com');
    await login(c, 'bye@example.com');
    const list = await a.get('/sessions', { accept: 'json' });
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThanOrEqual(2);
    expect(list.body.every((s: { id: string }) => s.id)).toBe(true);
    expect((await a.request('DELETE', `/sessions/${sb.body.session.id}`)).status).toBe(204);
    expect((await b.get('/sessions/whoami')).status).toBe(401);
    expect((await a.request('DELETE', '/sessions/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const all = await a.request('DELETE', '/sessions');
    expect(all.status).toBe(200);
    expect(all.body.count).toBeGreaterThanOrEqual(1);
    expect((await c.get('/sessions/whoami')).status).toBe(401);
    expect((await a.get('/sessions/whoami')).status).toBe(200);
    expect((await new Browser(h.publicUrl).get('/sessions')).status).toBe(401);

    const token = a.cookies.get('ory_kratos_session')!;
    const api = new Browser(h.publicUrl);
    expect(
      (await api.request('DELETE', '/self-service/logout/api', { json: { session_token: 'nope' } })).status,
    ).toBe(403);
    expect((await api.request('DELETE', '/self-service/logout/api', { json: {} })).status).toBe(400);
    expect(
      (await api.request('DELETE', '/self-service/logout/api', { json: { session_token: token } })).status,
    ).toBe(204);
    expect((await a.get('/sessions/whoami')).status).toBe(401);
  });
});
