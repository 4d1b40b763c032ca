import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsFlow, UiNode } from '@ory/client';
import { totpCodeAt } from '../../../src/strategies/totp/totp.ts';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  csrfOf,
  login,
  newLoginFlow,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const attr = (n: UiNode) =>
  n.attributes as {
    name?: string;
    id?: string;
    value?: unknown;
    src?: string;
    text?: { id: number; text: string };
  };
const byName = (f: SettingsFlow, name: string) => f.ui.nodes.find((n) => attr(n).name === name);
const byId = (f: SettingsFlow, id: string) => f.ui.nodes.find((n) => attr(n).id === id);

const settingsFlow = (b: Browser) => startFlow<SettingsFlow>(b, 'settings');
const submit = (b: Browser, flow: SettingsFlow, body: Record<string, unknown>) =>
  submitFlow(b, 'settings', flow, { csrf_token: csrfOf(flow), ...body });

const secretOf = (f: SettingsFlow) => attr(byId(f, 'totp_secret_key')!).text!.text;

describe('settings flow', () => {
  it('needs a session: JSON 401, browsers go to login', async () => {
    const b = new Browser(h.publicUrl);
    expect((await b.get('/self-service/settings/browser', { accept: 'json' })).status).toBe(401);
    const nav = await b.get('/self-service/settings/browser');
    expect(nav.status).toBe(303);
    expect(nav.headers.get('location')).toBe('http://localhost:4433/self-service/login/browser');
  });

  it('offers profile, password and TOTP setup nodes; a new flow means a new secret', async () => {
    await createUser(h, 'set1@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'set1@example.com');
    const f = await settingsFlow(b);
    for (const k of [
      'id',
      'type',
      'expires_at',
      'issued_at',
      'request_url',
      'ui',
      'state',
      'identity',
    ] as const)
      expect(f[k]).toBeDefined();
    expect(f.state).toBe('show_form');
    expect(f.ui.action).toBe(`http://localhost:4433/self-service/settings?flow=${f.id}`);
    expect(attr(byName(f, 'traits.email')!).value).toBe('set1@example.com');
    expect(byName(f, 'traits.onboarding.tosAccepted')!.group).toBe('profile');
    expect(byName(f, 'password')!.group).toBe('password');
    const qr = byId(f, 'totp_qr')!;
    expect(qr.type).toBe('img');
    expect(attr(qr).src).toMatch(/^data:image\/png;base64,/);
    expect(qr.meta.label?.id).toBe(1050005);
    const secret = byId(f, 'totp_secret_key')!;
    expect(attr(secret).text).toMatchObject({ id: 1050006 });
    expect(secret.meta.label?.id).toBe(1050017);
    expect(secretOf(f)).toMatch(/^[A-Z2-7]{32}$/);
    expect(byName(f, 'totp_code')!.meta.label?.id).toBe(1070006);
    const again = await settingsFlow(b);
    expect(secretOf(again)).not.toBe(secretOf(f));
    const got = await b.get(`/self-service/settings/flows?id=${f.id}`, { accept: 'json' });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(f.id);
  });

  it('profile: saves traits (1050001) and puts validation errors on the node', async () => {
    await createUser(h, 'set2@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'set2@example.com');
    const f = await settingsFlow(b);
    const traits = { ...f.identity.traits, name: { first: 'Renamed', last: 'Person' } };
    const ok = await submit(b, f, { method: 'profile', traits });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.state).toBe('success');
    expect(ok.body.ui.messages).toEqual([
      { id: 1050001, text: 'Your changes have been saved!', type: 'success' },
    ]);
    expect(ok.body.identity.traits.name).toEqual({ first: 'Renamed', last: 'Person' });
    expect(ok.body.identity.traits.onboarding).toEqual(f.identity.traits.onboarding);
    const bad = await submit(b, f, { method: 'profile', traits: { ...traits, email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(byName(bad.body, 'traits.email')!.messages[0]).toMatchObject({ type: 'error' });
    const form = await b.post(`/self-service/settings?flow=${f.id}`, {
      form: {
        csrf_token: csrfOf(f),
        method: 'profile',
        'traits.email': 'set2@example.com',
        'traits.name.first': 'Form',
      },
    });
    expect(form.status).toBe(303);
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.body.identity.traits.name.first).toBe('Form');
    // Traits the form leaves out that the user service manages are kept, not wiped.
    expect(who.body.identity.traits.onboarding).toEqual(f.identity.traits.onboarding);
  });

  it('threat: a form post of every profile node, as the page renders them, is refused for a person with no language set', async () => {
    await createUser(h, 'set-form@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'set-form@example.com');
    const f = await settingsFlow(b);
    expect(f.identity.traits.locale).toBeUndefined();
    // What a browser sends: each rendered input by its value ('' when empty), a checkbox only when ticked.
    const form: Record<string, string> = {};
    for (const node of f.ui.nodes) {
      if (node.group !== 'profile' && node.group !== 'default') continue;
      const { name, value } = attr(node);
      const type = (node.attributes as { type?: string }).type;
      if (!name || (type === 'checkbox' && value !== true)) continue;
      form[name] = type === 'checkbox' ? 'true' : typeof value === 'string' ? value : '';
    }
    expect(form['traits.locale']).toBe('');
    const res = await b.post(`/self-service/settings?flow=${f.id}`, {
      form: { ...form, method: 'profile', 'traits.name.first': 'Formed' },
    });
    expect(res.status, res.text).toBe(303);
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.body.identity.traits.name.first).toBe('Formed');
    expect(who.body.identity.traits.locale).toBeUndefined();
  });

  it('profile: the traits the user service manages (userServiceID, onboarding) can not be changed by the user', async () => {
    await createUser(h, 'set2b@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'set2b@example.com');
    const f = await settingsFlow(b);
    const onboarding = f.identity.traits.onboarding ?? {};
    for (const [name, traits] of [
      [
        'traits.onboarding.tosAccepted',
        { ...f.identity.traits, onboarding: { ...onboarding, tosAccepted: !onboarding.tosAccepted } },
      ],
      [
        'traits.onboarding.mfaSetupDeadline',
        { ...f.identity.traits, onboarding: { ...onboarding, mfaSetupDeadline: '2999-01-01T00:00:00.000Z' } },
      ],
      ['traits.userServiceID', { ...f.identity.traits, userServiceID: 'someone-else' }],
    ] as const) {
      const res = await submit(b, f, { method: 'profile', traits });
      expect(res.status, name).toBe(400);
      expect(byName(res.body, name)!.messages[0], name).toMatchObject({ type: 'error' });
    }
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.body.identity.traits).toEqual(f.identity.traits);
  });

  it('password: needs a privileged session (403 session_refresh_required), enforces the policy, then works', async () => {
    await createUser(h, 'set3@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'set3@example.com');
    const f = await settingsFlow(b);
    const weak = await submit(b, f, { method: 'password', password: 'password1' });
    expect(weak.status).toBe(400);
    expect(byName(weak.body, 'password')!.messages.map((m) => m.id)).toEqual([4000034]);
    const short = await submit(b, f, { method: 'password', password: 'short' });
    expect(byName(short.body, 'password')!.messages.map((m) => m.id)).toEqual([4000032]);
    // A digit and a special character on the server too: the same rule as the app's checklist (ADR 0014).
    const noDigit = await submit(b, f, { method: 'password', password: 'a long passphrase, no number' });
    expect(byName(noDigit.body, 'password')!.messages.map((m) => m.id)).toEqual([4000005]);
    const noSpecial = await submit(b, f, { method: 'password', password: 'Passphrase2026' });
    expect(byName(noSpecial.body, 'password')!.messages.map((m) => m.id)).toEqual([4000005]);
    const ok = await submit(b, f, {
      method: 'password',
      password: 'my new long passphrase 8',
      confirm: 'ignored',
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.state).toBe('success');

    h.clock.advance(61 * 60_000);
    const f2 = await settingsFlow(b);
    const stale = await submit(b, f2, { method: 'password', password: 'another long passphrase 9' });
    expect(stale.status).toBe(403);
    expect(stale.body.error.id).toBe('session_refresh_required');
    const to = new URL(stale.body.redirect_browser_to);
    expect(`${to.origin}${to.pathname}`).toBe('http://localhost:4433/self-service/login/browser');
    expect(to.searchParams.get('refresh')).toBe('true');
    expect(to.searchParams.get('return_to')).toBe(
      `http://localhost:4433/self-service/settings?flow=${f2.id}`,
    );
    // …and that re-authentication URL is itself accepted (own public URL is allow-listed).
    const reauth = await b.get(`${to.pathname}${to.search}`, { accept: 'json' });
    expect(reauth.status).toBe(200);
    expect(reauth.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([1010003]);
    expect(
      (await login(new Browser(h.publicUrl), 'set3@example.com', 'my new long passphrase 8')).status,
    ).toBe(200);
  });

  it('CSRF, identity mismatch, unknown method and expired flows', async () => {
    await createUser(h, 'set4@example.com');
    await createUser(h, 'set5@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'set4@example.com');
    const f = await settingsFlow(b);
    const noCsrf = await submitFlow(b, 'settings', f, { method: 'profile', traits: f.identity.traits });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.id).toBe('security_csrf_violation');
    const unknown = await submit(b, f, { method: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.ui.messages[0].id).toBe(4000001);
    const other = new Browser(h.publicUrl);
    await login(other, 'set5@example.com');
    const mismatch = await other.get(`/self-service/settings/flows?id=${f.id}`, { accept: 'json' });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error.id).toBe('security_identity_mismatch');
    expect(
      (
        await b.get('/self-service/settings/flows?id=00000000-0000-4000-8000-000000000000', {
          accept: 'json',
        })
      ).status,
    ).toBe(404);
    h.clock.advance(3600_000 + 1);
    await login(b, 'set4@example.com', DEMO_PASSWORD, '?refresh=true');
    const expired = await submit(b, f, { method: 'profile', traits: f.identity.traits });
    expect(expired.status).toBe(410);
    expect(expired.body.error.id).toBe('self_service_flow_expired');
    expect(expired.body.use_flow_id).toBeDefined();
    const got = await b.get(`/self-service/settings/flows?id=${f.id}`, { accept: 'json' });
    expect(got.status).toBe(410);
    expect(got.body.error.id).toBeUndefined();
  });
});

describe('TOTP', () => {
  const email = 'totp@example.com';
  let secret = '';

  it('links TOTP from settings (wrong code → 4000008 on totp_code); the current session becomes aal2', async () => {
    await createUser(h, email);
    const b = new Browser(h.publicUrl);
    await login(b, email);
    const f = await settingsFlow(b);
    secret = secretOf(f);
    const wrong = await submit(b, f, {
      method: 'totp',
      totp_code: '000000' === totpCodeAt(secret, h.clock.now()) ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    expect(byName(wrong.body, 'totp_code')!.messages.map((m) => m.id)).toEqual([4000008]);
    const ok = await submit(b, f, { method: 'totp', totp_code: totpCodeAt(secret, h.clock.now()) });
    expect(ok.status, ok.text).toBe(200);
    expect(byName(ok.body, 'totp_unlink')).toBeDefined();
    expect(byId(ok.body, 'totp_qr')).toBeUndefined();
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.status).toBe(200);
    expect(who.body.authenticator_assurance_level).toBe('aal2');
    expect(who.body.authentication_methods.map((m: { method: string }) => m.method)).toEqual([
      'password',
      'totp',
    ]);
  });

  it('password alone now leads to the second factor: 422 to aal2, whoami 403 session_aal2_required', async () => {
    h.clock.advance(60_000);
    const b = new Browser(h.publicUrl);
    const first = await login(b, email);
    expect(first.status).toBe(422);
    expect(first.body.error.id).toBe('browser_location_change_required');
    const to = new URL(first.body.redirect_browser_to);
    expect(to.pathname).toBe('/self-service/login/browser');
    expect(to.searchParams.get('aal')).toBe('aal2');
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.status).toBe(403);
    expect(who.body.error.id).toBe('session_aal2_required');
    expect(who.body.redirect_browser_to).toBe('http://localhost:4433/self-service/login/browser?aal=aal2');
    expect((await b.get('/self-service/settings/browser', { accept: 'json' })).status).toBe(403);

    const { flow, csrf } = await newLoginFlow(b, '?aal=aal2');
    expect(flow.requested_aal).toBe('aal2');
    expect(flow.ui.messages.map((m: { id: number }) => m.id)).toEqual([1010004]);
    expect(flow.ui.nodes.map((n: UiNode) => attr(n).name)).toEqual(['csrf_token', 'totp_code', 'method']);
    const wrong = await submitFlow(b, 'login', flow, {
      method: 'totp',
      totp_code: '12345',
      csrf_token: csrf,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([4000008]);
    const code = totpCodeAt(secret, h.clock.now());
    const ok = await submitFlow(b, 'login', flow, { method: 'totp', totp_code: code, csrf_token: csrf });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.session.authenticator_assurance_level).toBe('aal2');

    // Both second-factor outcomes are counted on the management listener's /metrics.
    const metrics = (await (await fetch(`${h.managementUrl}/metrics`)).text()).split('\n');
    const count = (outcome: string) =>
      Number(
        metrics
          .find(
            (l) =>
              l.startsWith('identity_second_factor_total{') &&
              l.includes('method="totp"') &&
              l.includes(`outcome="${outcome}"`),
          )
          ?.split(' ')
          .at(-1),
      );
    expect(count('failure')).toBe(1);
    expect(count('success')).toBe(1);
    expect(ok.body.session.authentication_methods.map((m: { method: string }) => m.method)).toEqual([
      'password',
      'totp',
    ]);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);

    // The same code cannot be used twice.
    const c = new Browser(h.publicUrl);
    await login(c, email);
    const second = await newLoginFlow(c, '?aal=aal2');
    const replay = await submitFlow(c, 'login', second.flow, {
      method: 'totp',
      totp_code: code,
      csrf_token: second.csrf,
    });
    expect(replay.status).toBe(400);
    expect(replay.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([4000008]);
    h.clock.advance(30_000);
    const fresh = await submitFlow(c, 'login', second.flow, {
      method: 'totp',
      totp_code: totpCodeAt(secret, h.clock.now()),
      csrf_token: second.csrf,
    });
    expect(fresh.status).toBe(200);
  });

  it('the sixth code on one flow is refused even when right: the flow is dead', async () => {
    h.clock.advance(60_000);
    const b = new Browser(h.publicUrl);
    await login(b, email);
    const { flow, csrf } = await newLoginFlow(b, '?aal=aal2');
    const right = totpCodeAt(secret, h.clock.now());
    const wrongCode = right === '999999' ? '888888' : '999999';
    for (let i = 0; i < 5; i++) {
      const r = await submitFlow(b, 'login', flow, {
        method: 'totp',
        totp_code: wrongCode,
        csrf_token: csrf,
      });
      expect(r.body.ui.messages.map((m: { id: number }) => m.id)).toEqual([4000008]);
    }
    const sixth = await submitFlow(b, 'login', flow, { method: 'totp', totp_code: right, csrf_token: csrf });
    expect(sixth.status).toBe(400);
    expect(sixth.body.ui.messages).toEqual([expect.objectContaining({ id: 4000001, type: 'error' })]);
    const next = await newLoginFlow(b, '?aal=aal2');
    const ok = await submitFlow(b, 'login', next.flow, {
      method: 'totp',
      totp_code: right,
      csrf_token: next.csrf,
    });
    expect(ok.status).toBe(200);
  });

  it('unlinks TOTP from settings', async () => {
    h.clock.advance(60_000);
    const b = new Browser(h.publicUrl);
    await login(b, email);
    const { flow, csrf } = await newLoginFlow(b, '?aal=aal2');
    await submitFlow(b, 'login', flow, {
      method: 'totp',
      totp_code: totpCodeAt(secret, h.clock.now()),
      csrf_token: csrf,
    });
    const f = await settingsFlow(b);
    const res = await submit(b, f, { method: 'totp', totp_unlink: true });
    expect(res.status, res.text).toBe(200);
    expect(byId(res.body, 'totp_qr')).toBeDefined();
    expect((await login(new Browser(h.publicUrl), email)).status).toBe(200);
  });
});
