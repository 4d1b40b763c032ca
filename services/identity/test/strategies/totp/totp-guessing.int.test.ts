import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../../src/strategies/totp/totp.ts';
import {
  Browser,
  createUser,
  linkTotp,
  csrfOf,
  login,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

// Guessing the second factor: a six-digit TOTP code is hopeless to guess only while the number of
// guesses stays small. These tests play the attacker who already holds the password.

interface Flow {
  id: string;
  ui: { nodes: { attributes: object }[]; messages?: { id: number; text: string }[] };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Creates a user with a linked TOTP device; answers its secret. */
async function userWithTotp(email: string): Promise<string> {
  await createUser(h, email);
  const b = new Browser(h.publicUrl);
  await login(b, email);
  const { secret, res } = await linkTotp(h, b);
  expect(res.status, res.text).toBe(200);
  h.clock.advance(60_000);
  return secret;
}

/** A password login by the attacker (who knows the password), then the aal2 flow it leads to. */
async function passwordThenSecondFactor(email: string): Promise<{ b: Browser; flow: Flow }> {
  const b = new Browser(h.publicUrl);
  const first = await login(b, email);
  expect(first.status, first.text).toBe(422);
  return { b, flow: await startFlow<Flow>(b, 'login', '?aal=aal2') };
}

/** The session never reached aal2: whoami asks for the second factor (Kratos's highest_available). */
async function expectStillAal1(b: Browser) {
  const who = await b.get('/sessions/whoami', { accept: 'json' });
  expect(who.status).toBe(403);
  expect(who.body.error.id).toBe('session_aal2_required');
}

const wrong = (code: string) => String((Number(code) + 500_001) % 1_000_000).padStart(6, '0');

function submitTotp(b: Browser, flow: Flow, code: string) {
  return submitFlow(b, 'login', flow, { method: 'totp', totp_code: code, csrf_token: csrfOf(flow) });
}

describe('second-factor guessing', () => {
  it('TOTP brute force alternating with password logins is refused', async () => {
    const email = 'totp-guess@example.com';
    const secret = await userWithTotp(email);
    // Nine guesses in three flows, each after a fresh password success, then the tenth.
    for (let round = 0; round < 3; round++) {
      const { b, flow } = await passwordThenSecondFactor(email);
      for (let i = 0; i < 3; i++) {
        const res = await submitTotp(b, flow, wrong(totpCodeAt(secret, h.clock.now())));
        expect(res.status).toBe(400);
        expect(messageIds(res.body)).toContain(4000008);
      }
      h.clock.advance(61_000); // past any password back-off
    }
    const { b, flow } = await passwordThenSecondFactor(email);
    const tenth = await submitTotp(b, flow, wrong(totpCodeAt(secret, h.clock.now())));
    expect(messageIds(tenth.body)).toContain(4000008);

    // The account's budget is spent: a password success did not give it back, and even the right
    // code is refused, with a message saying why.
    const again = await passwordThenSecondFactor(email);
    const right = await submitTotp(again.b, again.flow, totpCodeAt(secret, h.clock.now()));
    expect(right.status).toBe(400);
    expect(right.body.ui.messages[0].text).toMatch(/Too many wrong authentication codes/);
    await expectStillAal1(again.b);

    // After the hour, the right code works again.
    h.clock.advance(61 * 60_000);
    const later = await passwordThenSecondFactor(email);
    const ok = await submitTotp(later.b, later.flow, totpCodeAt(secret, h.clock.now()));
    expect(ok.status, ok.text).toBe(200);
    expect(
      (await later.b.get('/sessions/whoami', { accept: 'json' })).body.authenticator_assurance_level,
    ).toBe('aal2');
  });

  it('TOTP guessing in one flow stops after five wrong codes, even for the right code', async () => {
    const email = 'totp-flow@example.com';
    const secret = await userWithTotp(email);
    const { b, flow } = await passwordThenSecondFactor(email);
    for (let i = 0; i < 5; i++) await submitTotp(b, flow, wrong(totpCodeAt(secret, h.clock.now())));
    const right = await submitTotp(b, flow, totpCodeAt(secret, h.clock.now()));
    expect(right.status).toBe(400);
    await expectStillAal1(b);
  });

  it('TOTP guessing counts on the account lockout: the right password is refused, the owner told once', async () => {
    const email = 'totp-lock@example.com';
    const secret = await userWithTotp(email);
    const b = new Browser(h.publicUrl);
    expect((await login(b, email)).status).toBe(422); // the password success starts the count afresh
    // 50 wrong codes in ten flows (five each, a flow's cap), sent in parallel: each is admitted on the
    // account's lockout before it is compared; the tenth starts the lockout, the rest are refused.
    const flows = await Promise.all(
      Array.from({ length: 10 }, () => startFlow<Flow>(b, 'login', '?aal=aal2')),
    );
    const answers = await Promise.all(
      flows.flatMap((flow) =>
        Array.from({ length: 5 }, () => submitTotp(b, flow, wrong(totpCodeAt(secret, h.clock.now())))),
      ),
    );
    for (const res of answers) expect(res.status).toBe(400);
    const notices = () => h.mailbox.filter((m) => m.to === email && /is paused$/.test(m.subject));
    expect(notices()).toHaveLength(1);
    // The account is locked for passwords too, answered like a wrong password.
    const locked = await login(new Browser(h.publicUrl), email);
    expect(locked.status).toBe(400);
    expect(messageIds(locked.body)).toEqual([4000006]);
    expect(notices()).toHaveLength(1);
  });

  it('a replayed TOTP code is refused in another flow', async () => {
    const email = 'totp-replay@example.com';
    const secret = await userWithTotp(email);
    const code = totpCodeAt(secret, h.clock.now());
    const first = await passwordThenSecondFactor(email);
    expect((await submitTotp(first.b, first.flow, code)).status).toBe(200);
    const second = await passwordThenSecondFactor(email);
    const replay = await submitTotp(second.b, second.flow, code);
    expect(replay.status).toBe(400);
    expect(messageIds(replay.body)).toContain(4000008);
  });
});
