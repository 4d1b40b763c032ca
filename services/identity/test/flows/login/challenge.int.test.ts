import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../../src/strategies/totp/totp.ts';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  csrfOf,
  login,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

interface Recorded {
  method: string;
  url: string;
  body: unknown;
}

/** A stand-in for the authorization server's admin API that records every request. */
let hydra: Server;
let recorded: Recorded[] = [];
let loginRequest: Record<string, unknown> = {};
const REDIRECT = 'http://localhost:4444/oauth2/auth?client_id=platform&login_verifier=v1';

async function readBody(req: IncomingMessage): Promise<unknown> {
  let data = '';
  for await (const chunk of req) data += chunk;
  return data ? JSON.parse(data) : undefined;
}

let h: Harness;
let identityId: string;
beforeAll(async () => {
  hydra = createServer(async (req, res) => {
    const body = await readBody(req);
    recorded.push({ method: req.method!, url: req.url!, body });
    res.setHeader('content-type', 'application/json');
    const url = new URL(req.url!, 'http://x');
    if (url.searchParams.get('login_challenge') === 'unknown') {
      res.statusCode = 404;
      return res.end(
        JSON.stringify({ error: 'not_found', error_description: 'Unable to locate the resource' }),
      );
    }
    if (req.method === 'GET' && url.pathname === '/admin/oauth2/auth/requests/login') {
      return res.end(JSON.stringify({ challenge: url.searchParams.get('login_challenge'), ...loginRequest }));
    }
    if (req.method === 'PUT' && url.pathname === '/admin/oauth2/auth/requests/login/accept') {
      return res.end(JSON.stringify({ redirect_to: REDIRECT }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => hydra.listen(0, '127.0.0.1', r));
  h = await startHarness({ OAUTH2_ADMIN_URL: `http://127.0.0.1:${(hydra.address() as AddressInfo).port}` });
  identityId = await createUser(h, 'oauth@example.com');
});
afterAll(async () => {
  await h.close();
  await new Promise((r) => hydra.close(r));
});
beforeEach(() => {
  recorded = [];
  loginRequest = {
    skip: false,
    subject: '',
    client: { client_id: 'platform' },
    request_url: 'http://localhost:4444/oauth2/auth',
  };
});

describe('login_challenge (Kratos as the login UI of the authorization server)', () => {
  it('fetches the login request, and after the password accepts it and answers 422 browser_location_change_required', async () => {
    const b = new Browser(h.publicUrl);
    const init = await b.get('/self-service/login/browser?login_challenge=ch1', { accept: 'json' });
    expect(init.status).toBe(200);
    expect(init.body.oauth2_login_challenge).toBe('ch1');
    expect(init.body.oauth2_login_request).toMatchObject({ challenge: 'ch1', skip: false });
    expect(init.body.refresh).toBe(true); // skip=false forces refresh (kratos #3670)
    expect(init.body.ui.messages ?? []).toEqual([]); // …but without a session there is nothing to confirm
    expect(recorded[0]).toMatchObject({
      method: 'GET',
      url: '/admin/oauth2/auth/requests/login?login_challenge=ch1',
    });

    const res = await submitFlow(b, 'login', init.body, {
      method: 'password',
      identifier: 'oauth@example.com',
      password: DEMO_PASSWORD,
      csrf_token: csrfOf(init.body),
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({
      error: expect.objectContaining({
        id: 'browser_location_change_required',
        code: 422,
        message: 'browser location change required',
      }),
      redirect_browser_to: REDIRECT,
    });
    expect(b.cookies.get('ory_kratos_session')).toBeDefined();
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    const accept = recorded.find((r) => r.method === 'PUT')!;
    expect(accept.url).toBe('/admin/oauth2/auth/requests/login/accept?login_challenge=ch1');
    expect(accept.body).toEqual({
      subject: identityId,
      identity_provider_session_id: who.body.id,
      remember: true,
      remember_for: 86400,
      amr: ['password'],
    });
  });

  it('a browser form post gets a 303 to the authorization server', async () => {
    const b = new Browser(h.publicUrl);
    const init = await b.get('/self-service/login/browser?login_challenge=ch2', { accept: 'json' });
    const res = await b.post(`/self-service/login?flow=${init.body.id}`, {
      form: {
        method: 'password',
        identifier: 'oauth@example.com',
        password: DEMO_PASSWORD,
        csrf_token: csrfOf(init.body),
      },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(REDIRECT);
  });

  it('with a session and skip=false the user confirms the password (refresh, 1010003)', async () => {
    const b = new Browser(h.publicUrl);
    await login(b, 'oauth@example.com');
    const init = await b.get('/self-service/login/browser?login_challenge=ch3', { accept: 'json' });
    expect(init.status).toBe(200);
    expect(init.body.refresh).toBe(true);
    expect(init.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([1010003]);
  });

  it('with a session of the subject and skip=true it accepts at once (browser 303; JSON 400 session_already_available)', async () => {
    const b = new Browser(h.publicUrl);
    await login(b, 'oauth@example.com');
    loginRequest = { skip: true, subject: identityId };
    const json = await b.get('/self-service/login/browser?login_challenge=ch4', { accept: 'json' });
    expect(json.status).toBe(400);
    expect(json.body.error.id).toBe('session_already_available');
    const nav = await b.get('/self-service/login/browser?login_challenge=ch4');
    expect(nav.status).toBe(303);
    expect(nav.headers.get('location')).toBe(REDIRECT);
    expect(recorded.filter((r) => r.method === 'PUT')).toHaveLength(2);
  });

  it('a remembered login of a deactivated identity: the flow shows the form and says the account is deactivated (4010092)', async () => {
    const leaver = await createUser(h, 'leaver@example.com');
    const deactivate = await fetch(`${h.adminUrl}/admin/identities/${leaver}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ op: 'replace', path: '/state', value: 'inactive' }]),
    });
    expect(deactivate.status).toBe(200);
    const b = new Browser(h.publicUrl);
    loginRequest = { ...loginRequest, skip: false, subject: leaver };
    const init = await b.get('/self-service/login/browser?login_challenge=ch8', { accept: 'json' });
    expect(init.status).toBe(200);
    expect(init.body.ui.messages).toEqual([
      {
        id: 4010092,
        type: 'error',
        text: "Your account is deactivated. Please contact your organisation's administrator.",
      },
    ]);
    expect(recorded.filter((r) => r.method === 'PUT')).toHaveLength(0);
    // An active remembered subject gets no such message.
    loginRequest = { ...loginRequest, subject: identityId };
    const active = await b.get('/self-service/login/browser?login_challenge=ch9', { accept: 'json' });
    expect(active.body.ui.messages ?? []).toEqual([]);
  });

  it('an empty challenge is 400; an unknown challenge is answered in the Kratos envelope (never 5xx)', async () => {
    const b = new Browser(h.publicUrl);
    expect((await b.get('/self-service/login/browser?login_challenge=', { accept: 'json' })).status).toBe(
      400,
    );
    const unknown = await b.get('/self-service/login/browser?login_challenge=unknown', { accept: 'json' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(404);
  });

  it('with TOTP: password → 422 to aal2 (keeping login_challenge) → TOTP → accept with amr [password, totp]', async () => {
    const totpId = await createUser(h, 'oauth-totp@example.com');
    const setup = new Browser(h.publicUrl);
    await login(setup, 'oauth-totp@example.com');
    const sf = await setup.get('/self-service/settings/browser', { accept: 'json' });
    const secretNode = sf.body.ui.nodes.find(
      (n: { attributes: { id?: string } }) => n.attributes.id === 'totp_secret_key',
    );
    const secret = secretNode.attributes.text.text as string;
    const linked = await submitFlow(setup, 'settings', sf.body, {
      method: 'totp',
      totp_code: totpCodeAt(secret, h.clock.now()),
      csrf_token: csrfOf(sf.body),
    });
    expect(linked.status).toBe(200);
    h.clock.advance(60_000);

    const b = new Browser(h.publicUrl);
    const init = await b.get('/self-service/login/browser?login_challenge=ch5', { accept: 'json' });
    const first = await submitFlow(b, 'login', init.body, {
      method: 'password',
      identifier: 'oauth-totp@example.com',
      password: DEMO_PASSWORD,
      csrf_token: csrfOf(init.body),
    });
    expect(first.status).toBe(422);
    const to = new URL(first.body.redirect_browser_to);
    expect(to.searchParams.get('aal')).toBe('aal2');
    expect(to.searchParams.get('login_challenge')).toBe('ch5');
    expect(recorded.filter((r) => r.method === 'PUT')).toHaveLength(0);

    const second = await b.get(`${to.pathname}${to.search}`, { accept: 'json' });
    expect(second.status, second.text).toBe(200);
    expect(second.body.requested_aal).toBe('aal2');
    expect(second.body.oauth2_login_challenge).toBe('ch5');
    const done = await submitFlow(b, 'login', second.body, {
      method: 'totp',
      totp_code: totpCodeAt(secret, h.clock.now()),
      csrf_token: csrfOf(second.body),
    });
    expect(done.status, done.text).toBe(422);
    expect(done.body.redirect_browser_to).toBe(REDIRECT);
    const accept = recorded.find((r) => r.method === 'PUT')!;
    expect(accept.body).toMatchObject({ subject: totpId, amr: ['password', 'totp'] });
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.body.authenticator_assurance_level).toBe('aal2');
  });

  it('an unreachable authorization server answers 502 in the Kratos envelope', async () => {
    const down = await startHarness({ OAUTH2_ADMIN_URL: 'http://127.0.0.1:9' }, { db: h.db, clock: h.clock });
    try {
      const res = await new Browser(down.publicUrl).get('/self-service/login/browser?login_challenge=abc', {
        accept: 'json',
      });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 502, status: 'Bad Gateway' });
    } finally {
      await down.close();
    }
  });
});
