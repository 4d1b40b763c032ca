import { openApiErrors } from '@acme/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../src/strategies/totp/totp.ts';
import {
  Browser,
  createUser,
  DEMO_PASSWORD,
  lastCode,
  linkTotp,
  login,
  startHarness,
  type Harness,
  traits,
} from '../harness.ts';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';

/**
 * Native (API) flows, as Kratos answers them: `GET /self-service/<kind>/api` makes a flow of type
 * `api` without CSRF cookie or token; an API login answers `{session, session_token}`; the token then
 * serves whoami, settings and `DELETE /self-service/logout/api`. A browser (Origin or Cookie header)
 * is refused on an API flow; OIDC needs a browser and is refused on API flows.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const conforms = (path: string, method: string, status: number, body: unknown) =>
  expect(openApiErrors('kratos', path, method, status, body)).toEqual([]);

/** A native client: no cookie jar, JSON only. */
async function api(
  method: string,
  path: string,
  opts: { json?: unknown; token?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${h.publicUrl}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(opts.token ? { 'x-session-token': opts.token } : {}),
      ...opts.headers,
    },
    ...(opts.json !== undefined ? { body: JSON.stringify(opts.json) } : {}),
    redirect: 'manual',
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  const body: any = text ? JSON.parse(text) : undefined;
  return { status: res.status, body, cookies: res.headers.getSetCookie() };
}

async function apiLogin(identifier: string, password = DEMO_PASSWORD) {
  const flow = await api('GET', '/self-service/login/api');
  return api('POST', `/self-service/login?flow=${flow.body.id}`, {
    json: { method: 'password', identifier, password },
  });
}

describe('native (API) flows', () => {
  it('GET /self-service/{login,recovery,verification}/api: type api, no CSRF token or cookie', async () => {
    for (const kind of ['login', 'recovery', 'verification']) {
      const res = await api('GET', `/self-service/${kind}/api`);
      expect(res.status, kind).toBe(200);
      expect(res.body.type).toBe('api');
      expect(res.cookies).toEqual([]);
      const names = res.body.ui.nodes.map((n: { attributes: { name?: string } }) => n.attributes.name);
      expect(names).not.toContain('csrf_token');
      conforms(`/self-service/${kind}/api`, 'get', 200, res.body);
    }
  });

  it('password login answers {session, session_token}; the token serves whoami; logout/api ends it', async () => {
    await createUser(h, 'native@example.com');
    const res = await apiLogin('native@example.com');
    expect(res.status).toBe(200);
    expect(res.cookies.filter((c) => c.startsWith('ory_kratos_session'))).toEqual([]);
    expect(res.body.session_token).toMatch(/^ory_st_/);
    expect(res.body.session.identity.traits.email).toBe('native@example.com');
    conforms('/self-service/login', 'post', 200, res.body);
    const token = res.body.session_token as string;

    expect((await api('GET', '/sessions/whoami', { token })).status).toBe(200);
    // With a session token, a new login flow is refused as Kratos does.
    const again = await api('GET', '/self-service/login/api', { token });
    expect(again.status).toBe(400);
    expect(again.body.error.id).toBe('session_already_available');
    conforms('/self-service/login/api', 'get', 400, again.body);

    const out = await api('DELETE', '/self-service/logout/api', { json: { session_token: token } });
    expect(out.status).toBe(204);
    expect((await api('GET', '/sessions/whoami', { token })).status).toBe(401);
  });

  it('password + TOTP: the first token is aal1 (whoami 403), an aal2 API flow with it completes the session', async () => {
    await createUser(h, 'native-2fa@example.com');
    const b = new Browser(h.publicUrl);
    expect((await login(b, 'native-2fa@example.com')).status).toBe(200);
    const { secret, res: linked } = await linkTotp(h, b);
    expect(linked.status).toBe(200);
    h.clock.advance(31_000);

    const first = await apiLogin('native-2fa@example.com');
    expect(first.status).toBe(200);
    expect(first.body.session.authenticator_assurance_level).toBe('aal1');
    const aal1 = first.body.session_token as string;
    const denied = await api('GET', '/sessions/whoami', { token: aal1 });
    expect(denied.status).toBe(403);
    expect(denied.body.error.id).toBe('session_aal2_required');

    const flow = await api('GET', '/self-service/login/api?aal=aal2', { token: aal1 });
    expect(flow.status).toBe(200);
    expect(flow.body.requested_aal).toBe('aal2');
    const done = await api('POST', `/self-service/login?flow=${flow.body.id}`, {
      token: aal1,
      json: { method: 'totp', totp_code: totpCodeAt(secret, h.clock.now()) },
    });
    expect(done.status).toBe(200);
    expect(done.body.session.authenticator_assurance_level).toBe('aal2');
    const whoami = await api('GET', '/sessions/whoami', { token: done.body.session_token });
    expect(whoami.status).toBe(200);
    expect(whoami.body.authenticator_assurance_level).toBe('aal2');
  });

  it('settings with a session token: an API settings flow changes the password', async () => {
    await createUser(h, 'native-settings@example.com');
    const token = (await apiLogin('native-settings@example.com')).body.session_token as string;
    const flow = await api('GET', '/self-service/settings/api', { token });
    expect(flow.status).toBe(200);
    expect(flow.body.type).toBe('api');
    conforms('/self-service/settings/api', 'get', 200, flow.body);
    const saved = await api('POST', `/self-service/settings?flow=${flow.body.id}`, {
      token,
      json: { method: 'password', password: 'a much newer passphrase 2026' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.state).toBe('success');
    conforms('/self-service/settings', 'post', 200, saved.body);
    expect((await apiLogin('native-settings@example.com', 'a much newer passphrase 2026')).status).toBe(200);
    // Without a session: 401, as Kratos.
    expect((await api('GET', '/self-service/settings/api')).status).toBe(401);
  });

  it('recovery code on an API flow: the token comes back in continue_with with an API settings flow', async () => {
    await createUser(h, 'native-recovery@example.com');
    const flow = await api('GET', '/self-service/recovery/api');
    const sent = await api('POST', `/self-service/recovery?flow=${flow.body.id}`, {
      json: { method: 'code', email: 'native-recovery@example.com' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.state).toBe('sent_email');
    const done = await api('POST', `/self-service/recovery?flow=${flow.body.id}`, {
      json: { method: 'code', code: lastCode(h, 'native-recovery@example.com') },
    });
    expect(done.status).toBe(200);
    expect(done.cookies.filter((c) => c.startsWith('ory_kratos_session'))).toEqual([]);
    const [setToken, showSettings] = done.body.continue_with;
    expect(setToken.action).toBe('set_ory_session_token');
    expect(setToken.ory_session_token).toMatch(/^ory_st_/);
    expect(showSettings.action).toBe('show_settings_ui');
    const token = setToken.ory_session_token as string;
    const settings = await api('GET', `/self-service/settings/flows?id=${showSettings.flow.id}`, { token });
    expect(settings.status).toBe(200);
    expect(settings.body.type).toBe('api');
    const saved = await api('POST', `/self-service/settings?flow=${showSettings.flow.id}`, {
      token,
      json: { method: 'password', password: 'recovered from a terminal 2026' },
    });
    expect(saved.status).toBe(200);
    expect((await apiLogin('native-recovery@example.com', 'recovered from a terminal 2026')).status).toBe(
      200,
    );
  });

  it('verification code on an API flow verifies the address', async () => {
    await createIdentityAdminClient({ baseUrl: h.adminUrl }).createIdentity({
      schema_id: 'default',
      traits: traits('native-verify@example.com'),
      verifiable_addresses: [{ value: 'native-verify@example.com', verified: false, via: 'email' }],
    });
    const flow = await api('GET', '/self-service/verification/api');
    const sent = await api('POST', `/self-service/verification?flow=${flow.body.id}`, {
      json: { method: 'code', email: 'native-verify@example.com' },
    });
    expect(sent.status).toBe(200);
    const done = await api('POST', `/self-service/verification?flow=${flow.body.id}`, {
      json: { method: 'code', code: lastCode(h, 'native-verify@example.com') },
    });
    expect(done.status).toBe(200);
    expect(done.body.state).toBe('passed_challenge');
    conforms('/self-service/verification', 'post', 200, done.body);
  });

  it('CSRF: an API flow submitted by a browser (Origin or Cookie header) is refused with Kratos’s 400', async () => {
    await createUser(h, 'native-csrf@example.com');
    const browserHeaders: Record<string, string>[] = [{ origin: 'https://evil.example' }, { cookie: 'a=b' }];
    for (const headers of browserHeaders) {
      const flow = await api('GET', '/self-service/login/api');
      const res = await api('POST', `/self-service/login?flow=${flow.body.id}`, {
        headers,
        json: { method: 'password', identifier: 'native-csrf@example.com', password: DEMO_PASSWORD },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toContain('The flow however was initiated as an API request.');
    }
  });

  it('CSRF: a browser flow submitted without its cookie is refused with security_csrf_violation', async () => {
    const b = new Browser(h.publicUrl);
    const flow = await b.get('/self-service/login/browser', { accept: 'json' });
    const res = await api('POST', `/self-service/login?flow=${flow.body.id}`, {
      json: { method: 'password', identifier: 'x@example.com', password: DEMO_PASSWORD },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.id).toBe('security_csrf_violation');
  });

  it('OIDC on an API flow answers "not supported for API flows"', async () => {
    const flow = await api('GET', '/self-service/login/api');
    const res = await api('POST', `/self-service/login?flow=${flow.body.id}`, {
      json: { method: 'oidc', provider: 'globex' },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.ui.messages)).toContain('not supported for API flows');
    conforms('/self-service/login', 'post', 400, res.body);
  });
});
