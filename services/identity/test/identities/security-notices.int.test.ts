import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../src/strategies/totp/totp.ts';
import {
  Browser,
  createUser,
  csrfOf,
  login,
  startFlow,
  startHarness,
  submitFlow,
  totpSecretOf,
  type Harness,
} from '../harness.ts';
import type { Mail } from '../../src/testing/strategy-context.ts';

// A change someone else made to an account (password, second factor, email address) must not go
// unnoticed: the owner is told by mail, and the mail carries no secret.

interface SettingsFlow {
  id: string;
  identity: { traits: Record<string, unknown> };
  ui: { nodes: { attributes: object }[] };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const NEW_PASSWORD = 'another long passphrase 2026';

async function signedInSettings(email: string): Promise<{ b: Browser; flow: SettingsFlow }> {
  const b = new Browser(h.publicUrl);
  expect((await login(b, email)).status).toBe(200);
  return { b, flow: await startFlow<SettingsFlow>(b, 'settings') };
}

function mailsTo(to: string, since: number): Mail[] {
  return h.mailbox.slice(since).filter((m) => m.to === to);
}

describe('security notices', () => {
  it('a password change is told to the owner, without the password', async () => {
    const email = 'notice-password@example.com';
    await createUser(h, email);
    const { b, flow } = await signedInSettings(email);
    const before = h.mailbox.length;
    const res = await submitFlow(b, 'settings', flow, {
      method: 'password',
      password: NEW_PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(res.status, res.text).toBe(200);
    const [notice, ...more] = mailsTo(email, before);
    expect(more).toEqual([]);
    expect(notice!.subject).toMatch(/password was changed/);
    expect(notice!.text).toMatch(/If you did not, recover your password/);
    expect(`${notice!.text}${notice!.html}`).not.toContain(NEW_PASSWORD);
  });

  it('a refused password change sends nothing', async () => {
    const email = 'notice-refused@example.com';
    await createUser(h, email);
    const { b, flow } = await signedInSettings(email);
    const before = h.mailbox.length;
    const res = await submitFlow(b, 'settings', flow, {
      method: 'password',
      password: 'short',
      csrf_token: csrfOf(flow),
    });
    expect(res.status).toBe(400);
    expect(mailsTo(email, before)).toEqual([]);
  });

  it('turning the second factor on and off is told to the owner', async () => {
    const email = 'notice-totp@example.com';
    await createUser(h, email);
    const { b, flow } = await signedInSettings(email);
    const secret = totpSecretOf(flow);
    const before = h.mailbox.length;
    const linked = await submitFlow(b, 'settings', flow, {
      method: 'totp',
      totp_code: totpCodeAt(secret, h.clock.now()),
      csrf_token: csrfOf(flow),
    });
    expect(linked.status, linked.text).toBe(200);
    expect(mailsTo(email, before).map((m) => m.subject)).toEqual([
      expect.stringMatching(/Two-factor authentication was turned on/),
    ]);
    const again = await startFlow<SettingsFlow>(b, 'settings');
    const mid = h.mailbox.length;
    const unlinked = await submitFlow(b, 'settings', again, {
      method: 'totp',
      totp_unlink: true,
      csrf_token: csrfOf(again),
    });
    expect(unlinked.status, unlinked.text).toBe(200);
    expect(mailsTo(email, mid).map((m) => m.subject)).toEqual([
      expect.stringMatching(/Two-factor authentication was turned off/),
    ]);
  });

  it('an email change is told to the old address', async () => {
    const email = 'notice-old@example.com';
    await createUser(h, email);
    const { b, flow } = await signedInSettings(email);
    const before = h.mailbox.length;
    const res = await submitFlow(b, 'settings', flow, {
      method: 'profile',
      traits: { ...flow.identity.traits, email: 'notice-new@example.com' },
      csrf_token: csrfOf(flow),
    });
    expect(res.status, res.text).toBe(200);
    const [notice] = mailsTo(email, before);
    expect(notice!.subject).toMatch(/email address of your .* account was changed/);
    expect(notice!.text).toContain('notice-new@example.com');
    // A profile save that keeps the address sends nothing.
    const same = await startFlow<SettingsFlow>(b, 'settings');
    const mid = h.mailbox.length;
    const kept = await submitFlow(b, 'settings', same, {
      method: 'profile',
      traits: { ...same.identity.traits, name: { first: 'Kept', last: 'Address' } },
      csrf_token: csrfOf(same),
    });
    expect(kept.status, kept.text).toBe(200);
    expect(h.mailbox.slice(mid)).toEqual([]);
  });

  it('an email change whose notice cannot be queued is not made', async () => {
    const email = 'notice-atomic@example.com';
    await createUser(h, email);
    const { b, flow } = await signedInSettings(email);
    const mailer = h.app.ctx.mailer;
    const enqueue = mailer.enqueue;
    mailer.enqueue = async () => {
      throw new Error('the outbox is unavailable');
    };
    try {
      const res = await submitFlow(b, 'settings', flow, {
        method: 'profile',
        traits: { ...flow.identity.traits, email: 'notice-atomic-new@example.com' },
        csrf_token: csrfOf(flow),
      });
      expect(res.status).toBe(500);
    } finally {
      mailer.enqueue = enqueue;
    }
    // The change and its notice commit together: the address is still the old one.
    const whoami = await b.get('/sessions/whoami', { accept: 'json' });
    expect(whoami.body.identity.traits.email).toBe(email);
  });
});
