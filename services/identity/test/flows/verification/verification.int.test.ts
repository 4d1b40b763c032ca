import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationFlow } from '@ory/client';
import {
  Browser,
  csrfOf,
  lastCode,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

let h: Harness;
let admin: Browser;
beforeAll(async () => {
  h = await startHarness();
  admin = new Browser(h.adminUrl);
});
afterAll(() => h.close());

async function unverified(email: string): Promise<string> {
  const res = await admin.post('/admin/identities', { json: { schema_id: 'default', traits: { email } } });
  expect(res.status).toBe(201);
  return res.body.id;
}
const start = (b: Browser, query = '') => startFlow<VerificationFlow>(b, 'verification', query);
const post = (b: Browser, f: VerificationFlow, body: Record<string, unknown>) =>
  submitFlow(b, 'verification', f, body);

describe('verification (code)', () => {
  it('sends a code (1080003), refuses a wrong one (200 + 4070006), verifies (1080002) and replaces a finished flow (410)', async () => {
    const id = await unverified('verify@example.com');
    const b = new Browser(h.publicUrl);
    const f = await start(b, `?return_to=${encodeURIComponent('http://localhost:4000/account/login')}`);
    for (const k of ['id', 'type', 'ui', 'state'] as const) expect(f[k]).toBeDefined();
    expect(f.state).toBe('choose_method');
    const sent = await post(b, f, { method: 'code', email: 'verify@example.com', csrf_token: csrfOf(f) });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.state).toBe('sent_email');
    expect(messageIds(sent.body)).toEqual([1080003]);
    const codeNode = sent.body.ui.nodes.find(
      (n: { attributes: { name?: string } }) => n.attributes.name === 'code',
    );
    expect(codeNode.meta.label.id).toBe(1070011);
    const code = lastCode(h, 'verify@example.com');

    // The code needs no CSRF token: it may be entered in another browser.
    const other = new Browser(h.publicUrl);
    const wrong = await post(other, sent.body, {
      method: 'code',
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(200);
    expect(messageIds(wrong.body)).toEqual([4070006]);
    const ok = await post(other, sent.body, { method: 'code', code });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.state).toBe('passed_challenge');
    expect(ok.body.ui.messages).toEqual([
      { id: 1080002, type: 'success', text: 'You successfully verified your email address.' },
    ]);
    expect(ok.body.ui.method).toBe('GET');
    expect(ok.body.ui.action).toBe('http://localhost:4000/account/login');
    expect(ok.body.ui.nodes[0]).toMatchObject({
      type: 'a',
      attributes: { id: 'continue', href: 'http://localhost:4000/account/login' },
    });
    const identity = await admin.get(`/admin/identities/${id}`);
    expect(identity.body.verifiable_addresses[0]).toMatchObject({ verified: true, status: 'completed' });
    expect(identity.body.verifiable_addresses[0].verified_at).toBeDefined();

    const again = await post(other, sent.body, { method: 'code', code });
    expect(again.status).toBe(410);
    expect(again.body.error.id).toBe('self_service_flow_replaced');
    expect(again.body.use_flow_id).toBeDefined();
  });

  it('an unknown address gets the same answer and no mail; at most 5 code submissions', async () => {
    const b = new Browser(h.publicUrl);
    const f = await start(b);
    const before = h.mailbox.length;
    const sent = await post(b, f, { method: 'code', email: 'unknown@example.com', csrf_token: csrfOf(f) });
    expect(sent.status).toBe(200);
    expect(messageIds(sent.body)).toEqual([1080003]);
    expect(h.mailbox.length).toBe(before);
    for (let i = 0; i < 5; i++)
      expect(messageIds((await post(b, sent.body, { method: 'code', code: '123456' })).body)).toEqual([
        4070006,
      ]);
    const sixth = await post(b, sent.body, { method: 'code', code: '123456' });
    expect(sixth.status).toBe(410);
    expect(sixth.body.error.id).toBe('self_service_flow_replaced');
  });

  it('CSRF on sending, bad input, unknown and expired flows', async () => {
    await unverified('csrf-verify@example.com');
    const b = new Browser(h.publicUrl);
    const f = await start(b);
    expect((await post(b, f, { method: 'code', email: 'csrf-verify@example.com' })).status).toBe(403);
    expect((await post(b, f, { method: 'code', email: 'nope', csrf_token: csrfOf(f) })).status).toBe(400);
    expect((await post(b, f, { method: 'link', csrf_token: csrfOf(f) })).status).toBe(400);
    expect((await post(b, f, { method: 'code', code: '123456' })).status).toBe(400);
    const ct = await b.post(`/self-service/verification?flow=${f.id}`, {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
      accept: 'json',
    });
    expect(ct.status).toBe(415);
    expect((await b.get('/self-service/verification/flows?id=nope', { accept: 'json' })).status).toBe(404);
    expect(
      (await new Browser(h.publicUrl).get(`/self-service/verification/flows?id=${f.id}`, { accept: 'json' }))
        .status,
    ).toBe(403);
    h.clock.advance(3600_000 + 1);
    const expired = await post(b, f, {
      method: 'code',
      email: 'csrf-verify@example.com',
      csrf_token: csrfOf(f),
    });
    expect(expired.status).toBe(410);
    expect(expired.body.error.id).toBe('self_service_flow_expired');
    expect((await b.get(`/self-service/verification/flows?id=${f.id}`, { accept: 'json' })).status).toBe(410);
  });
});
