import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiText } from '@ory/client';
import { typed } from '@acme/db';
import type { IdentityDb } from '../../src/db/schema.ts';
import {
  Browser,
  createUser,
  csrfOf,
  lastCode,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../harness.ts';

/**
 * The code guard as the live recovery and verification flows use it, over HTTP: an attacker who
 * knows an address tries to guess its six-digit code by resending and restarting flows.
 */
let h: Harness;
let admin: Browser;
beforeAll(async () => {
  h = await startHarness();
  admin = new Browser(h.adminUrl);
});
afterAll(() => h.close());

type Flow = { id: string; ui: { nodes: { attributes: object }[]; messages?: UiText[] } };
const LOCKED = 'Too many wrong codes were entered for this address. Please try again in an hour.';
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

async function guessing(kind: 'recovery' | 'verification', email: string) {
  const b = new Browser(h.publicUrl);
  const send = async (f: Flow) => {
    const res = await submitFlow(b, kind, f, { method: 'code', email, csrf_token: csrfOf(f) });
    return res;
  };
  const guess = (f: Flow, code: string) =>
    submitFlow(b, kind, f, { method: 'code', code, csrf_token: csrfOf(f) });
  return { b, send, guess, start: () => startFlow<Flow>(b, kind) };
}

/** Spends `n` wrong codes on one flow, with a resend after the first `before` of them. */
async function wrongAcrossResend(
  kind: 'recovery' | 'verification',
  email: string,
  before: number,
  n: number,
) {
  const g = await guessing(kind, email);
  const f = await g.start();
  const sent = await g.send(f);
  expect(sent.status, sent.text).toBe(200);
  for (let i = 0; i < n; i++) {
    if (i === before) expect((await g.send(sent.body)).status).toBe(200);
    const res = await g.guess(sent.body, wrongFor(lastCode(h, email)));
    expect(res.status, res.text).toBe(200);
  }
  return g;
}

async function bruteForceThenRightCode(kind: 'recovery' | 'verification', email: string) {
  // Two flows, each with a resend: 5 + 5 wrong codes for the address.
  await wrongAcrossResend(kind, email, 3, 5);
  await wrongAcrossResend(kind, email, 2, 5);
  // A third flow with a fresh code: even the right code is refused for the rest of the hour.
  const g = await guessing(kind, email);
  const f = await g.start();
  expect((await g.send(f)).status).toBe(200);
  const right = await g.guess(f, lastCode(h, email));
  expect(right.status, right.text).toBe(400);
  expect(right.body.ui.messages).toEqual([expect.objectContaining({ id: 4000001, text: LOCKED })]);
  return g;
}

describe('code guessing against the live flows', () => {
  it('recovery code brute force across resends is refused', async () => {
    await createUser(h, 'brute-recovery@example.com');
    const g = await bruteForceThenRightCode('recovery', 'brute-recovery@example.com');
    expect((await g.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('verification code brute force across resends is refused', async () => {
    const res = await admin.post('/admin/identities', {
      json: { schema_id: 'default', traits: { email: 'brute-verify@example.com' } },
    });
    expect(res.status).toBe(201);
    await bruteForceThenRightCode('verification', 'brute-verify@example.com');
    const identity = await admin.get(`/admin/identities/${res.body.id}`);
    expect(identity.body.verifiable_addresses[0].verified).toBe(false);
  });

  it('a resend does not revive a dead recovery flow', async () => {
    const email = 'dead-flow@example.com';
    await createUser(h, email);
    const g = await guessing('recovery', email);
    const f = await g.start();
    const sent = await g.send(f);
    for (let i = 0; i < 5; i++) {
      if (i === 2) expect((await g.send(sent.body)).status).toBe(200);
      expect(messageIds((await g.guess(sent.body, wrongFor(lastCode(h, email)))).body)).toEqual([4060006]);
    }
    expect((await g.guess(sent.body, lastCode(h, email))).status).toBe(410);
    const mails = h.mailbox.length;
    const resend = await g.send(sent.body);
    expect(resend.status, resend.text).toBe(410);
    expect(resend.body.error.id).toBe('self_service_flow_replaced');
    expect(h.mailbox.length).toBe(mails);
    expect((await g.guess(sent.body, lastCode(h, email))).status).toBe(410);
    expect((await g.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('code mails per address are limited', async () => {
    const email = 'many-mails@example.com';
    await createUser(h, email);
    const count = () => h.mailbox.filter((m) => m.to === email).length;
    for (let i = 0; i < 7; i++) {
      const g = await guessing('recovery', email);
      expect((await g.send(await g.start())).status).toBe(200);
    }
    expect(count()).toBe(5);
  });

  it('code mails per address are limited, also in parallel: of 50 recovery requests at once exactly 5 mail a code, and all 50 get the same answer', async () => {
    const email = 'parallel-mails@example.com';
    await createUser(h, email);
    const flows = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const g = await guessing('recovery', email);
        return { g, f: await g.start() };
      }),
    );
    const answers = await Promise.all(flows.map(({ g, f }) => g.send(f)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 50 }, () => 200));
    // The answer does not tell whether a mail went out.
    expect(answers[0]!.body.ui.messages).toEqual([expect.objectContaining({ type: 'info' })]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body.ui.messages)))).toHaveProperty('size', 1);
    expect(h.mailbox.filter((m) => m.to === email)).toHaveLength(5);
  });

  it('a stored code is an HMAC under the server secret, not the code or its plain hash', async () => {
    const email = 'stored@example.com';
    await createUser(h, email);
    const g = await guessing('recovery', email);
    const f = await g.start();
    await g.send(f);
    const row = await typed<IdentityDb>(h.db)
      .selectFrom('identity_flows')
      .select('internal')
      .where('id', '=', f.id)
      .executeTakeFirstOrThrow();
    const stored = (row.internal as { code_hash: string }).code_hash;
    const { createHash, createHmac } = await import('node:crypto');
    const code = lastCode(h, email);
    expect(stored).not.toBe(createHash('sha256').update(`${f.id}:${code}`).digest('hex'));
    expect(stored).toBe(
      createHmac('sha256', h.config.codeSecrets[0]!).update(`${f.id}:${code}`).digest('hex'),
    );
  });
});
