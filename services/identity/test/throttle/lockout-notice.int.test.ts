import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, DEMO_PASSWORD, createUser, login, startHarness, type Harness } from '../harness.ts';

// A lockout must not surprise its owner: the failure that starts one mails them what happened and
// what to do. The mail goes once per lockout start, only to existing accounts, and changes nothing
// in the HTTP answer (unknown addresses answer the same, and get no mail).

const SUBJECT = 'Sign-in to your Acme Research account is paused';
const MIN = 60_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const noticesTo = (to: string) => h.mailbox.filter((m) => m.to === to && m.subject === SUBJECT);
const answer = (res: { status: number; body: { ui: { messages: unknown[]; nodes: unknown[] } } }) => ({
  status: res.status,
  messages: res.body.ui.messages,
});

describe('lockout notice', () => {
  it('a lockout surprises nobody: its owner is mailed once per lockout start, with what to do next', async () => {
    const email = 'notice@example.com';
    await createUser(h, email);
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 9; i++) await login(b, email, `wrong-${i}-password`);
    expect(noticesTo(email)).toHaveLength(0);
    await login(b, email, 'wrong-10-password'); // the 10th failure starts a 15-minute lockout
    const [mail, ...more] = noticesTo(email);
    expect(more).toHaveLength(0);
    expect(mail!.text).toContain('paused until 1 March 2026 at 10:15 UTC');
    expect(mail!.text).toContain('Forgot password');
    expect(mail!.text).toContain(h.config.ui.recovery);
    expect(mail!.text).toContain('administrator');
    expect(mail!.text).not.toMatch(/\b\d{6}\b/); // no code
    expect(mail!.text).not.toContain('wrong-'); // nor anything typed

    // Attempts while it runs (the right password included) are refused and send nothing more.
    for (let i = 0; i < 5; i++) await login(b, email, `still-wrong-${i}`);
    expect((await login(b, email, DEMO_PASSWORD)).status).toBe(400);
    expect(noticesTo(email)).toHaveLength(1);

    // The lockout ends; the next failure starts a new (30-minute) one: one more notice.
    h.clock.advance(15 * MIN + 1000);
    await login(b, email, 'wrong-11-password');
    expect(noticesTo(email)).toHaveLength(2);
    expect(noticesTo(email)[1]!.text).toContain('paused until 1 March 2026 at 10:45 UTC');
  });

  it('lockout notices reveal no account: an unknown address gets the same answers and no mail', async () => {
    const known = 'known-notice@example.com';
    const ghost = 'ghost-notice@example.com';
    await createUser(h, known);
    const before = h.mailbox.length;
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 12; i++) {
      const a = await login(b, known, `wrong-${i}-password`);
      const g = await login(b, ghost, `wrong-${i}-password`);
      expect(answer(g)).toEqual(answer(a));
    }
    expect(noticesTo(ghost)).toHaveLength(0);
    expect(h.mailbox.slice(before).map((m) => m.to)).toEqual([known]);
  });

  it('a right 10th password starts no lockout and sends no notice', async () => {
    const email = 'lucky@example.com';
    await createUser(h, email);
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 9; i++) await login(b, email, `wrong-${i}-password`);
    expect((await login(b, email, DEMO_PASSWORD)).status).toBe(200);
    expect(noticesTo(email)).toHaveLength(0);
    const again = new Browser(h.publicUrl);
    expect((await login(again, email, 'wrong-again')).status).toBe(400);
    expect((await login(again, email, DEMO_PASSWORD)).status).toBe(200);
  });
});
