import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecoveryFlow, UiNode } from '@ory/client';
import {
  Browser,
  createUser,
  csrfOf,
  lastCode,
  login,
  messageIds,
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

const names = (f: RecoveryFlow) =>
  f.ui.nodes.map((n: UiNode) => [
    (n.attributes as { name?: string }).name,
    (n.attributes as { type?: string }).type,
  ]);
const start = (b: Browser) => startFlow<RecoveryFlow>(b, 'recovery');
const post = (b: Browser, f: RecoveryFlow, body: Record<string, unknown>, csrf = csrfOf(f)) =>
  submitFlow(b, 'recovery', f, { csrf_token: csrf, ...body });

describe('recovery (code)', () => {
  it('choose_method → sent_email (1060003, code mailed) → passed_challenge: session code_recovery, settings flow 1060001, 422', async () => {
    await createUser(h, 'forgot@example.com');
    const b = new Browser(h.publicUrl);
    const f = await start(b);
    for (const k of ['id', 'type', 'expires_at', 'issued_at', 'request_url', 'ui', 'state'] as const)
      expect(f[k]).toBeDefined();
    expect(f.state).toBe('choose_method');
    expect(f.active).toBe('code');
    expect(names(f)).toEqual([
      ['csrf_token', 'hidden'],
      ['email', 'email'],
      ['method', 'submit'],
    ]);
    const sent = await post(b, f, { method: 'code', email: 'Forgot@example.com' });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.state).toBe('sent_email');
    expect(messageIds(sent.body)).toEqual([1060003]);
    const codeNode = sent.body.ui.nodes.find(
      (n: UiNode) => (n.attributes as { name?: string }).name === 'code',
    );
    expect(codeNode.attributes).toMatchObject({
      type: 'text',
      required: true,
      pattern: '[0-9]+',
      maxlength: 6,
      autocomplete: 'one-time-code',
    });
    expect(codeNode.meta.label.id).toBe(1070010);
    const resend = sent.body.ui.nodes.find(
      (n: UiNode) => (n.attributes as { name?: string }).name === 'email',
    );
    expect(resend.attributes).toMatchObject({ type: 'submit', value: 'forgot@example.com' });
    expect(resend.meta.label.id).toBe(1070008);
    expect(h.mailbox.at(-1)!.to).toBe('forgot@example.com');
    const code = lastCode(h, 'forgot@example.com');
    expect(code).toMatch(/^\d{6}$/);

    const wrong = await post(b, sent.body, { method: 'code', code: code === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(200);
    expect(messageIds(wrong.body)).toEqual([4060006]);

    const ok = await post(b, sent.body, { method: 'code', code });
    expect(ok.status, ok.text).toBe(422);
    expect(ok.body.error.id).toBe('browser_location_change_required');
    const to = new URL(ok.body.redirect_browser_to);
    expect(`${to.origin}${to.pathname}`).toBe('http://localhost:4000/account/profile');
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.status).toBe(200);
    expect(who.body.authentication_methods).toEqual([
      expect.objectContaining({ method: 'code_recovery', aal: 'aal1' }),
    ]);
    const settings = await b.get(`/self-service/settings/flows?id=${to.searchParams.get('flow')}`, {
      accept: 'json',
    });
    expect(settings.status).toBe(200);
    expect(settings.body.ui.messages[0]).toMatchObject({ id: 1060001, type: 'success' });
    // The recovered session may set a new password right away.
    const pw = await submitFlow(b, 'settings', settings.body, {
      method: 'password',
      password: 'a recovered passphrase 7',
      csrf_token: csrfOf(settings.body),
    });
    expect(pw.status, pw.text).toBe(200);
    expect(
      (await login(new Browser(h.publicUrl), 'forgot@example.com', 'a recovered passphrase 7')).status,
    ).toBe(200);
    // A finished flow is replaced.
    const again = await post(b, sent.body, { method: 'code', code });
    expect(again.status).toBe(410);
    expect(again.body.error.id).toBe('self_service_flow_replaced');
  });

  it('an unknown address gets the same answer and no mail', async () => {
    const b = new Browser(h.publicUrl);
    const f = await start(b);
    const before = h.mailbox.length;
    const res = await post(b, f, { method: 'code', email: 'nobody@example.com' });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('sent_email');
    expect(messageIds(res.body)).toEqual([1060003]);
    expect(h.mailbox.length).toBe(before);
    const wrong = await post(b, res.body, { method: 'code', code: '123456' });
    expect(wrong.status).toBe(200);
    expect(messageIds(wrong.body)).toEqual([4060006]);
  });

  it('the sixth code submission replaces the flow (4000001), even with the right code', async () => {
    await createUser(h, 'six@example.com');
    const b = new Browser(h.publicUrl);
    const f = await start(b);
    const sent = await post(b, f, { method: 'code', email: 'six@example.com' });
    const code = lastCode(h, 'six@example.com');
    const wrongCode = code === '999999' ? '888888' : '999999';
    for (let i = 0; i < 5; i++)
      expect(messageIds((await post(b, sent.body, { method: 'code', code: wrongCode })).body)).toEqual([
        4060006,
      ]);
    const sixth = await post(b, sent.body, { method: 'code', code });
    expect(sixth.status).toBe(410);
    expect(sixth.body.error.id).toBe('self_service_flow_replaced');
    const next = await b.get(`/self-service/recovery/flows?id=${sixth.body.use_flow_id}`, { accept: 'json' });
    expect(next.body.ui.messages[0]).toMatchObject({
      id: 4000001,
      text: 'The request was submitted too often. Please request another code.',
    });
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('with a session: 400 session_already_available; CSRF, bad input, unknown and expired flows', async () => {
    await createUser(h, 'logged@example.com');
    const s = new Browser(h.publicUrl);
    await login(s, 'logged@example.com');
    const already = await s.get('/self-service/recovery/browser', { accept: 'json' });
    expect(already.status).toBe(400);
    expect(already.body.error.id).toBe('session_already_available');

    const b = new Browser(h.publicUrl);
    const f = await start(b);
    expect((await submitFlow(b, 'recovery', f, { method: 'code', email: 'x@example.com' })).status).toBe(403);
    const bad = await post(b, f, { method: 'code', email: 'not an email' });
    expect(bad.status).toBe(400);
    const missing = await post(b, f, { method: 'code' });
    expect(missing.status).toBe(400);
    const method = await post(b, f, { method: 'password' });
    expect(method.status).toBe(400);
    const malformed = await b.post(`/self-service/recovery?flow=${f.id}`, {
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(
      (
        await b.get('/self-service/recovery/flows?id=00000000-0000-4000-8000-000000000000', {
          accept: 'json',
        })
      ).status,
    ).toBe(404);
    h.clock.advance(3600_000 + 1);
    const expired = await post(b, f, { method: 'code', email: 'x@example.com' });
    expect(expired.status).toBe(410);
    expect(expired.body.error.id).toBe('self_service_flow_expired');
    expect((await b.get(`/self-service/recovery/flows?id=${f.id}`, { accept: 'json' })).status).toBe(410);
  });
});

describe('mail bombing guard', () => {
  it('sends at most 5 code mails per address per hour; the answer stays the same', async () => {
    await createUser(h, 'bomb@example.com');
    const b = new Browser(h.publicUrl);
    const count = () => h.mailbox.filter((m) => m.to === 'bomb@example.com').length;
    for (let i = 0; i < 7; i++) {
      const f = await start(b);
      const res = await post(b, f, { method: 'code', email: 'bomb@example.com' });
      expect(res.status).toBe(200);
      expect(messageIds(res.body)).toEqual([1060003]);
    }
    expect(count()).toBe(5);
    h.clock.advance(3600_000 + 1);
    const f = await start(b);
    await post(b, f, { method: 'code', email: 'bomb@example.com' });
    expect(count()).toBe(6);
  });
});

describe('POST /admin/recovery/code (invitation)', () => {
  it('returns 201 {recovery_link, recovery_code, expires_at}; the flow needs no CSRF and signs the user in', async () => {
    const id = await createUser(h, 'invite@example.com');
    const admin = new Browser(h.adminUrl);
    const res = await admin.post('/admin/recovery/code', { json: { identity_id: id, expires_in: '48h' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.recovery_code).toMatch(/^\d{6}$/);
    const link = new URL(res.body.recovery_link);
    expect(`${link.origin}${link.pathname}`).toBe('http://localhost:4000/account/forgot-password');
    expect(new Date(res.body.expires_at).getTime() - h.clock.now().getTime()).toBe(48 * 3600_000);
    const b = new Browser(h.publicUrl);
    const flow = await b.get(`/self-service/recovery/flows?id=${link.searchParams.get('flow')}`, {
      accept: 'json',
    });
    expect(flow.status).toBe(200);
    expect(flow.body.state).toBe('sent_email');
    expect(names(flow.body).map((n) => n[0])).not.toContain('csrf_token');
    const ok = await submitFlow(b, 'recovery', flow.body, { method: 'code', code: res.body.recovery_code });
    expect(ok.status, ok.text).toBe(422);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).body.identity.id).toBe(id);

    expect(
      (
        await admin.post('/admin/recovery/code', {
          json: { identity_id: '00000000-0000-4000-8000-000000000000' },
        })
      ).status,
    ).toBe(404);
    expect((await admin.post('/admin/recovery/code', { json: {} })).status).toBe(400);
    expect(
      (await admin.post('/admin/recovery/code', { json: { identity_id: id, expires_in: 'soon' } })).status,
    ).toBe(400);
  });
});
