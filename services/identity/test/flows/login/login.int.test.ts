import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginFlow, Session, SuccessfulNativeLogin, UiNodeInputAttributes } from '@ory/client';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  csrfOf,
  login,
  newLoginFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

let h: Harness;
const email = 'ada@example.com';
let identityId: string;

beforeAll(async () => {
  h = await startHarness();
  identityId = await createUser(h, email);
});
afterAll(() => h.close());

function assertLoginFlow(f: LoginFlow) {
  for (const k of ['id', 'type', 'expires_at', 'issued_at', 'request_url', 'ui', 'state'] as const)
    expect(f[k]).toBeDefined();
  expect(f.ui.action).toContain(`/self-service/login?flow=${f.id}`);
  expect(f.ui.method).toBe('POST');
}
const node = (f: LoginFlow, name: string) =>
  f.ui.nodes.find((n) => (n.attributes as UiNodeInputAttributes).name === name);

describe('GET /self-service/login/browser', () => {
  it('answers JSON clients with a Kratos login flow and sets the CSRF cookie', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.get('/self-service/login/browser', { accept: 'json' });
    expect(res.status).toBe(200);
    const flow = res.body as LoginFlow;
    assertLoginFlow(flow);
    expect(flow.type).toBe('browser');
    expect(flow.state).toBe('choose_method');
    expect(flow.refresh).toBe(false);
    expect(flow.requested_aal).toBe('aal1');
    expect(new Date(flow.expires_at).getTime() - new Date(flow.issued_at).getTime()).toBe(3600_000);
    expect(flow.ui.nodes.map((n) => [n.group, (n.attributes as UiNodeInputAttributes).name])).toEqual([
      ['default', 'csrf_token'],
      ['default', 'identifier'],
      ['password', 'password'],
      ['password', 'method'],
      // Passkeys (strategies/passkey/login.ts): the challenge, the answer, the trigger, the script.
      ['passkey', 'passkey_challenge'],
      ['passkey', 'passkey_login'],
      ['passkey', 'passkey_login_trigger'],
      ['passkey', undefined],
    ]);
    expect(node(flow, 'csrf_token')!.attributes).toMatchObject({
      type: 'hidden',
      required: true,
      disabled: false,
      node_type: 'input',
    });
    expect(node(flow, 'password')!.meta.label).toMatchObject({ id: 1070001, text: 'Password', type: 'info' });
    expect(node(flow, 'method')!.attributes).toMatchObject({ type: 'submit', value: 'password' });
    expect(node(flow, 'method')!.meta.label?.id).toBe(1010022);
    const csrfCookie = res.setCookies.find((c) => c.startsWith('csrf_token_'));
    expect(csrfCookie).toMatch(/^csrf_token_[0-9a-f]{64}=/);
    expect(csrfCookie).toMatch(/HttpOnly/i);
    expect(csrfCookie).toMatch(/SameSite=Lax/i);
    expect(csrfOf(flow)).not.toBe('');
  });

  it('redirects browsers to the login UI with ?flow=', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.get('/self-service/login/browser', { accept: 'html' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(
      /^http:\/\/localhost:4000\/account\/login\?flow=[0-9a-f-]{36}$/,
    );
  });

  it('refuses a return_to outside the allow-list (400 self_service_flow_return_to_forbidden)', async () => {
    const b = new Browser(h.publicUrl);
    for (const bad of ['https://evil.example/', '//evil.example', 'http://localhost:4000@evil.example/']) {
      const res = await b.get(`/self-service/login/browser?return_to=${encodeURIComponent(bad)}`, {
        accept: 'json',
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ id: 'self_service_flow_return_to_forbidden', code: 400 });
    }
    const ok = await b.get(
      `/self-service/login/browser?return_to=${encodeURIComponent('http://localhost:4001/account/x')}`,
      { accept: 'json' },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.return_to).toBe('http://localhost:4001/account/x');
  });

  it('browsers get a forbidden return_to via the error UI, readable at /self-service/errors', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.get(
      `/self-service/login/browser?return_to=${encodeURIComponent('https://evil.example/')}`,
    );
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(`${loc.origin}${loc.pathname}`).toBe('http://localhost:4000/account/error');
    const err = await b.get(`/self-service/errors?id=${loc.searchParams.get('id')}`, { accept: 'json' });
    expect(err.status).toBe(200);
    expect(err.body).toMatchObject({
      id: loc.searchParams.get('id'),
      error: { id: 'self_service_flow_return_to_forbidden', code: 400 },
    });
    expect((await b.get('/self-service/errors?id=00000000-0000-0000-0000-000000000000')).status).toBe(404);
  });

  it('rejects aal=aal2 without a session (401 session_aal1_required) and a bad aal (400)', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.get('/self-service/login/browser?aal=aal2', { accept: 'json' });
    expect(res.status).toBe(401);
    expect(res.body.error.id).toBe('session_aal1_required');
    expect((await b.get('/self-service/login/browser?aal=aal9', { accept: 'json' })).status).toBe(400);
  });
});

describe('GET /self-service/login/flows', () => {
  it('returns the flow to the browser holding its CSRF cookie', async () => {
    const b = new Browser(h.publicUrl);
    const { flow } = await newLoginFlow(b);
    const res = await b.get(`/self-service/login/flows?id=${flow.id}`, { accept: 'json' });
    expect(res.status).toBe(200);
    assertLoginFlow(res.body);
    expect(res.body.id).toBe(flow.id);
  });

  it('403 security_csrf_violation without the cookie, 404 for unknown ids', async () => {
    const b = new Browser(h.publicUrl);
    const { flow } = await newLoginFlow(b);
    const other = new Browser(h.publicUrl);
    const res = await other.get(`/self-service/login/flows?id=${flow.id}`, { accept: 'json' });
    expect(res.status).toBe(403);
    expect(res.body.error.id).toBe('security_csrf_violation');
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '']) {
      const r = await b.get(`/self-service/login/flows?id=${id}`, { accept: 'json' });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe(404);
    }
  });
});

describe('POST /self-service/login (password)', () => {
  it('signs in: 200 {session, continue_with}, session cookie, whoami', async () => {
    const b = new Browser(h.publicUrl);
    const res = await login(b, 'ADA@example.com ');
    expect(res.status, res.text).toBe(200);
    const body = res.body as SuccessfulNativeLogin;
    const s = body.session;
    expect(s.id).toBeDefined();
    expect(s.active).toBe(true);
    expect(s.authenticator_assurance_level).toBe('aal1');
    expect(s.authentication_methods).toEqual([expect.objectContaining({ method: 'password', aal: 'aal1' })]);
    expect(s.identity!.id).toBe(identityId);
    expect(s.identity!.traits.email).toBe(email);
    expect(s.identity!.verifiable_addresses![0]).toMatchObject({
      value: email,
      verified: true,
      via: 'email',
      status: 'completed',
    });
    expect(s.identity).not.toHaveProperty('credentials');
    expect(new Date(s.expires_at!).getTime() - new Date(s.authenticated_at!).getTime()).toBe(24 * 3600_000);
    expect(body.continue_with).toEqual([
      { action: 'redirect_browser_to', redirect_browser_to: 'http://localhost:4000/' },
    ]);
    expect(body).not.toHaveProperty('session_token');
    const cookie = res.setCookies.find((c) => c.startsWith('ory_kratos_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
    expect(cookie).toMatch(/Path=\//);
    const token = cookie.split(';')[0]!.split('=')[1]!;
    expect(token).toMatch(/^ory_st_[A-Za-z0-9_-]{43}$/);
    const stored = await h.db.kysely
      .selectFrom('identity_sessions')
      .select('token_hash')
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toContain(token);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.status).toBe(200);
    expect((who.body as Session).id).toBe(s.id);
    expect(who.headers.get('x-kratos-authenticated-identity-id')).toBe(identityId);
    const bearer = await new Browser(h.publicUrl).get('/sessions/whoami', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bearer.status).toBe(200);
    const xst = await new Browser(h.publicUrl).get('/sessions/whoami', {
      headers: { 'x-session-token': token },
    });
    expect(xst.status).toBe(200);
  });

  it('whoami without a session answers 401 in the Kratos envelope', async () => {
    const res = await new Browser(h.publicUrl).get('/sessions/whoami', { accept: 'json' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: {
        code: 401,
        status: 'Unauthorized',
        reason: 'No valid session credentials found in the request.',
        message: 'The request could not be authorized',
      },
    });
  });

  it('issues a new token at every authentication (refresh) and keeps the old one dead', async () => {
    const b = new Browser(h.publicUrl);
    const first = await login(b, email);
    const t1 = b.cookies.get('ory_kratos_session');
    const again = await b.get('/self-service/login/browser', { accept: 'json' });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ id: 'session_already_available', code: 400 });
    const refresh = await newLoginFlow(b, '?refresh=true');
    expect(refresh.flow.refresh).toBe(true);
    expect(refresh.flow.ui.messages).toEqual([
      expect.objectContaining({
        id: 1010003,
        type: 'info',
        text: 'Please confirm this action by verifying that it is you.',
      }),
    ]);
    expect(node(refresh.flow, 'identifier')!.attributes).toMatchObject({ type: 'hidden', value: email });
    const res = await submitFlow(b, 'login', refresh.flow, {
      method: 'password',
      identifier: email,
      password: DEMO_PASSWORD,
      csrf_token: refresh.csrf,
    });
    expect(res.status).toBe(200);
    const t2 = b.cookies.get('ory_kratos_session');
    expect(t2).not.toBe(t1);
    expect(res.body.session.id).not.toBe(first.body.session.id);
    expect(
      (await new Browser(h.publicUrl).get('/sessions/whoami', { headers: { 'x-session-token': t1! } }))
        .status,
    ).toBe(401);
    expect(res.body.session.authentication_methods).toHaveLength(2);
  });

  it('a browser form post signs in and is redirected to return_to', async () => {
    const b = new Browser(h.publicUrl);
    const init = await b.get(
      `/self-service/login/browser?return_to=${encodeURIComponent('http://localhost:4000/account/welcome')}`,
    );
    const flowId = new URL(init.headers.get('location')!).searchParams.get('flow')!;
    const flow = await b.get(`/self-service/login/flows?id=${flowId}`, { accept: 'json' });
    const res = await b.post(`/self-service/login?flow=${flowId}`, {
      form: { method: 'password', identifier: email, password: DEMO_PASSWORD, csrf_token: csrfOf(flow.body) },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('http://localhost:4000/account/welcome');
    expect(b.cookies.get('ory_kratos_session')).toBeDefined();
  });

  it('a wrong password answers 400 with the flow and 4000006 in ui.messages', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    const res = await submitFlow(b, 'login', flow, {
      method: 'password',
      identifier: email,
      password: 'wrong password!',
      csrf_token: csrf,
    });
    expect(res.status).toBe(400);
    assertLoginFlow(res.body);
    expect(res.body.ui.messages).toEqual([
      {
        id: 4000006,
        type: 'error',
        text: 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
      },
    ]);
    expect(node(res.body, 'identifier')!.attributes).toMatchObject({ value: email });
    expect((node(res.body, 'password')!.attributes as UiNodeInputAttributes).value).toBeUndefined();
    expect(csrfOf(res.body)).not.toBe('');
    const again = await b.get(`/self-service/login/flows?id=${flow.id}`, { accept: 'json' });
    expect(again.body.ui.messages[0].id).toBe(4000006);
  });

  it('an unknown identifier gets exactly the same answer shape', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    const res = await submitFlow(b, 'login', flow, {
      method: 'password',
      identifier: 'nobody@example.com',
      password: 'wrong password!',
      csrf_token: csrf,
    });
    expect(res.status).toBe(400);
    expect(res.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([4000006]);
  });

  it('missing fields: 400 flow with 4000002 on the nodes', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    const res = await submitFlow(b, 'login', flow, { method: 'password', csrf_token: csrf });
    expect(res.status).toBe(400);
    expect(node(res.body, 'identifier')!.messages).toEqual([
      {
        id: 4000002,
        type: 'error',
        text: 'Property identifier is missing.',
        context: { property: 'identifier' },
      },
    ]);
    expect(node(res.body, 'password')!.messages[0]).toMatchObject({
      id: 4000002,
      text: 'Property password is missing.',
    });
  });

  it('an unknown or missing method: 400 flow with 4010002', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    for (const method of ['magic', undefined]) {
      const res = await submitFlow(b, 'login', flow, { method, csrf_token: csrf });
      expect(res.status).toBe(400);
      expect(res.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([4010002]);
    }
  });

  it('missing or wrong CSRF token: 403 security_csrf_violation', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    const body = { method: 'password', identifier: email, password: DEMO_PASSWORD };
    const missing = await b.post(`/self-service/login?flow=${flow.id}`, { json: body, accept: 'json' });
    expect(missing.status).toBe(403);
    expect(missing.body.error).toMatchObject({
      id: 'security_csrf_violation',
      code: 403,
      status: 'Forbidden',
    });
    expect(missing.body.error.details.reject_reason).toBeDefined();
    const wrong = await submitFlow(b, 'login', flow, { ...body, csrf_token: 'A'.repeat(86) });
    expect(wrong.status).toBe(403);
    // A valid token of another browser does not work with this flow either.
    const other = new Browser(h.publicUrl);
    const theirs = await newLoginFlow(other);
    const mixed = await submitFlow(b, 'login', flow, { ...body, csrf_token: theirs.csrf });
    expect(mixed.status).toBe(403);
    const noCookie = await submitFlow(other, 'login', flow, { ...body, csrf_token: csrf });
    expect(noCookie.status).toBe(403);
    // A cross-site Origin is refused even with a valid token (Origin checked as well).
    const evil = await b.post(`/self-service/login?flow=${flow.id}`, {
      json: { ...body, csrf_token: csrf },
      headers: { origin: 'https://evil.example' },
      accept: 'json',
    });
    expect(evil.status).toBe(403);
    expect(evil.body.error.id).toBe('security_csrf_violation');
    // The header works as well as the body field, from an app origin too.
    const header = await b.post(`/self-service/login?flow=${flow.id}`, {
      json: body,
      headers: { 'x-csrf-token': csrf, origin: 'http://localhost:4000' },
      accept: 'json',
    });
    expect(header.status).toBe(200);
  });

  it('malformed JSON: 400 flow with 4000001; wrong content type: 415 envelope; body over 16 KB (IDENTITY_WEBAUTHN_BODY_LIMIT): 413 envelope', async () => {
    const b = new Browser(h.publicUrl);
    const { flow } = await newLoginFlow(b);
    const bad = await b.post(`/self-service/login?flow=${flow.id}`, {
      body: '{"method":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.ui.messages[0]).toMatchObject({ id: 4000001, type: 'error' });
    const ct = await b.post(`/self-service/login?flow=${flow.id}`, {
      body: 'method=password',
      headers: { 'content-type': 'text/plain' },
      accept: 'json',
    });
    expect(ct.status).toBe(415);
    expect(ct.body.error).toMatchObject({ code: 415, status: 'Unsupported Media Type' });
    const big = await submitFlow(b, 'login', flow, {
      method: 'password',
      identifier: email,
      password: 'x'.repeat(17_000),
      csrf_token: 'x',
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(413);
  });

  it('unknown flow: 404; browsers go to the error UI', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.post('/self-service/login?flow=00000000-0000-4000-8000-000000000000', {
      json: {},
      accept: 'json',
    });
    expect(res.status).toBe(404);
    const br = await b.post('/self-service/login?flow=nope', { form: { method: 'password' } });
    expect(br.status).toBe(303);
    expect(br.headers.get('location')).toMatch(/^http:\/\/localhost:4000\/account\/error\?id=/);
  });

  it('expired flow: 410 self_service_flow_expired with use_flow_id; the new flow carries 4010001', async () => {
    const b = new Browser(h.publicUrl);
    const { flow, csrf } = await newLoginFlow(b);
    h.clock.advance(3600_000 + 1000);
    try {
      const got = await b.get(`/self-service/login/flows?id=${flow.id}`, { accept: 'json' });
      expect(got.status).toBe(410);
      expect(got.body.error.id).toBe('self_service_flow_expired');
      const res = await submitFlow(b, 'login', flow, {
        method: 'password',
        identifier: email,
        password: DEMO_PASSWORD,
        csrf_token: csrf,
      });
      expect(res.status).toBe(410);
      expect(res.body.error).toMatchObject({ id: 'self_service_flow_expired', code: 410, status: 'Gone' });
      expect(res.body.use_flow_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.expired_at).toBe(flow.expires_at);
      const fresh = await b.get(`/self-service/login/flows?id=${res.body.use_flow_id}`, { accept: 'json' });
      expect(fresh.status).toBe(200);
      expect(fresh.body.ui.messages[0]).toMatchObject({ id: 4010001, type: 'error' });
      const ok = await b.post(`/self-service/login?flow=${res.body.use_flow_id}`, {
        json: {
          method: 'password',
          identifier: email,
          password: DEMO_PASSWORD,
          csrf_token: csrfOf(fresh.body),
        },
        accept: 'json',
      });
      expect(ok.status).toBe(200);
    } finally {
      h.clock.advance(0);
    }
  });
});
