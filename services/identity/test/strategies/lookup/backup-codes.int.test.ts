import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../../src/strategies/totp/totp.ts';
import {
  Browser,
  createUser,
  csrfOf,
  DEMO_PASSWORD,
  linkTotp,
  login,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';

// Backup codes (Kratos `lookup_secret`): made in settings (shown once, stored hashed), used at login
// in place of the authenticator app, once each, counted like TOTP codes.

interface Node {
  group: string;
  attributes: { name?: string; id?: string; text?: { id: number; text: string; context?: unknown } };
}
interface Flow {
  id: string;
  state?: string;
  ui: { nodes: Node[]; messages?: { id: number; text: string }[] };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const names = (f: Flow) => f.ui.nodes.map((n) => n.attributes.name ?? n.attributes.id);
const codesOf = (f: Flow): string[] => {
  const node = f.ui.nodes.find((n) => n.attributes.id === 'lookup_secret_codes');
  const ctx = node?.attributes.text?.context as { secrets?: { text: string }[] } | undefined;
  return (ctx?.secrets ?? []).map((s) => s.text);
};

/** A user with TOTP and a confirmed set of backup codes; answers the browser, the TOTP secret and the codes. */
async function userWithCodes(email: string) {
  await createUser(h, email);
  const b = new Browser(h.publicUrl);
  await login(b, email);
  const { secret, res } = await linkTotp(h, b);
  expect(res.status, res.text).toBe(200);
  const flow = await startFlow<Flow>(b, 'settings');
  const made = await submitFlow(b, 'settings', flow, {
    method: 'lookup_secret',
    lookup_secret_regenerate: true,
    csrf_token: csrfOf(flow),
  });
  expect(made.status, made.text).toBe(200);
  const codes = codesOf(made.body as Flow);
  const confirmed = await submitFlow(b, 'settings', flow, {
    method: 'lookup_secret',
    lookup_secret_confirm: true,
    csrf_token: csrfOf(flow),
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  h.clock.advance(60_000);
  return { b, secret, codes, flowId: flow.id };
}

async function secondFactorFlow(email: string) {
  const b = new Browser(h.publicUrl);
  expect((await login(b, email)).status).toBe(422);
  return { b, flow: await startFlow<Flow>(b, 'login', '?aal=aal2') };
}

const useCode = (b: Browser, flow: Flow, code: string) =>
  submitFlow(b, 'login', flow, { method: 'lookup_secret', lookup_secret: code, csrf_token: csrfOf(flow) });

const aalOf = async (b: Browser) => (await b.get('/sessions/whoami', { accept: 'json' })).body;

describe('backup codes in settings', () => {
  it('makes 12 codes shown once, keeps only their hashes, and switches sets on confirm with a notice', async () => {
    const email = 'codes-settings@example.com';
    const { b, codes, flowId } = await userWithCodes(email);
    expect(codes).toHaveLength(12);
    expect(new Set(codes).size).toBe(12);
    for (const c of codes) expect(c).toMatch(/^[a-z0-9]{8}$/);
    // Not in the stored flow, nor in plain text in the database.
    const again = await b.get(`/self-service/settings/flows?id=${flowId}`, { accept: 'json' });
    expect(again.status).toBe(200);
    expect(JSON.stringify(again.body)).not.toContain(codes[0]);
    const stored = await h.db.kysely
      .selectFrom('identity_credentials')
      .select('config')
      .where('type', '=', 'lookup_secret')
      .execute();
    for (const c of codes) expect(JSON.stringify(stored)).not.toContain(c);
    expect(h.mailbox.filter((m) => m.to === email && /New backup codes/.test(m.subject))).toHaveLength(1);

    // A new set replaces the old one only once confirmed.
    const flow = await startFlow<Flow>(b, 'settings');
    expect(names(flow)).toEqual(
      expect.arrayContaining([
        'lookup_secret_remaining',
        'lookup_secret_regenerate',
        'lookup_secret_disable',
      ]),
    );
    const made = await submitFlow(b, 'settings', flow, {
      method: 'lookup_secret',
      lookup_secret_regenerate: true,
      csrf_token: csrfOf(flow),
    });
    const fresh = codesOf(made.body as Flow);
    const confirmed = await submitFlow(b, 'settings', flow, {
      method: 'lookup_secret',
      lookup_secret_confirm: true,
      csrf_token: csrfOf(flow),
    });
    expect(messageIds(confirmed.body as Flow)).toEqual([1050001]);
    const old = await secondFactorFlow(email);
    const refused = await useCode(old.b, old.flow, codes[0]!);
    expect(refused.status).toBe(400);
    expect(messageIds(refused.body as Flow)).toEqual([4000016]);
    expect((await useCode(old.b, old.flow, fresh[0]!)).status).toBe(200);
  });

  it('non-privileged session: regenerating is refused with session_refresh_required', async () => {
    const email = 'codes-stale@example.com';
    const { b } = await userWithCodes(email);
    h.clock.advance(2 * 3600_000); // past PRIVILEGED_SESSION_MAX_AGE (1 h)
    const flow = await startFlow<Flow>(b, 'settings');
    for (const action of ['lookup_secret_regenerate', 'lookup_secret_disable', 'lookup_secret_reveal']) {
      const res = await submitFlow(b, 'settings', flow, {
        method: 'lookup_secret',
        [action]: true,
        csrf_token: csrfOf(flow),
      });
      expect(res.status).toBe(403);
      expect(res.body.error.id).toBe('session_refresh_required');
    }
    // A flow the account page started (with return_to) sends the re-authentication back there.
    const page = 'http://localhost:4000/account/settings';
    const fromPage = await startFlow<Flow>(b, 'settings', `?return_to=${encodeURIComponent(page)}`);
    const res = await submitFlow(b, 'settings', fromPage, {
      method: 'lookup_secret',
      lookup_secret_regenerate: true,
      csrf_token: csrfOf(fromPage),
    });
    expect(res.status).toBe(403);
    const to = new URL(res.body.redirect_browser_to);
    expect(to.searchParams.get('refresh')).toBe('true');
    expect(to.searchParams.get('return_to')).toBe(page);

    // The password confirmation ("refresh" login) ends back on the account page.
    const refresh = await b.get(`${to.pathname}${to.search}`, { accept: 'json' });
    expect(refresh.status, refresh.text).toBe(200);
    const confirmed = await submitFlow(b, 'login', refresh.body, {
      method: 'password',
      identifier: 'codes-stale@example.com',
      password: DEMO_PASSWORD,
      csrf_token: csrfOf(refresh.body),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.continue_with).toEqual([
      { action: 'redirect_browser_to', redirect_browser_to: page },
    ]);
    // Now privileged: the same change goes through.
    const fresh = await startFlow<Flow>(b, 'settings', `?return_to=${encodeURIComponent(page)}`);
    const made = await submitFlow(b, 'settings', fresh, {
      method: 'lookup_secret',
      lookup_secret_regenerate: true,
      csrf_token: csrfOf(fresh),
    });
    expect(made.status).toBe(200);
    expect(codesOf(made.body as Flow)).toHaveLength(12);
  });
});

describe('backup codes at login', () => {
  it('a code stands in for TOTP once; the owner is told how many are left; the same code is refused after', async () => {
    const email = 'codes-login@example.com';
    const { codes } = await userWithCodes(email);
    const { b, flow } = await secondFactorFlow(email);
    expect(names(flow)).toEqual(expect.arrayContaining(['totp_code', 'lookup_secret']));
    const ok = await useCode(b, flow, codes[3]!.toUpperCase().replace(/(....)/, '$1-'));
    expect(ok.status, ok.text).toBe(200);
    const who = await aalOf(b);
    expect(who.authenticator_assurance_level).toBe('aal2');
    expect(who.authentication_methods.map((m: { method: string }) => m.method)).toContain('lookup_secret');
    const notice = h.mailbox.filter((m) => m.to === email && /A backup code was used/.test(m.subject));
    expect(notice).toHaveLength(1);
    expect(notice[0]!.text).toContain('11 unused backup codes are left.');
    expect(notice[0]!.text).not.toContain(codes[3]);

    const used = await secondFactorFlow(email);
    const refused = await useCode(used.b, used.flow, codes[3]!);
    expect(refused.status).toBe(400);
    expect(messageIds(refused.body as Flow)).toEqual([4000012]);
    expect((await aalOf(used.b)).error?.id).toBe('session_aal2_required');
  });

  it('replayed code: 50 parallel submits of one code admit exactly one', async () => {
    const email = 'codes-race@example.com';
    const { codes } = await userWithCodes(email);
    // 50 second-factor flows, signed in five at a time (parallel sign-ins of one account are counted
    // against its lockout before the password is checked).
    const attempts: Awaited<ReturnType<typeof secondFactorFlow>>[] = [];
    for (let i = 0; i < 10; i++) {
      attempts.push(...(await Promise.all(Array.from({ length: 5 }, () => secondFactorFlow(email)))));
    }
    const answers = await Promise.all(attempts.map(({ b, flow }) => useCode(b, flow, codes[0]!)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(49);
    // Nothing half-written: one use, so one notice.
    const notices = h.mailbox.filter((m) => m.to === email && /A backup code was used/.test(m.subject));
    expect(notices).toHaveLength(1);
  }, 60_000);

  it('backup-code guessing shares the TOTP limits: after 10 wrong second factors even a right code is refused', async () => {
    const email = 'codes-guess@example.com';
    const { codes, secret } = await userWithCodes(email);
    // Five wrong TOTP codes and five wrong backup codes, in two flows: one per-account budget.
    const one = await secondFactorFlow(email);
    for (let i = 0; i < 5; i++) {
      const wrongTotp = String((Number(totpCodeAt(secret, h.clock.now())) + 1 + i) % 1_000_000).padStart(
        6,
        '0',
      );
      const res = await submitFlow(one.b, 'login', one.flow, {
        method: 'totp',
        totp_code: wrongTotp,
        csrf_token: csrfOf(one.flow),
      });
      expect(res.status).toBe(400);
    }
    h.clock.advance(61_000);
    const two = await secondFactorFlow(email);
    for (let i = 0; i < 5; i++) expect((await useCode(two.b, two.flow, `zzzzzzz${i}`)).status).toBe(400);
    h.clock.advance(61_000);
    const three = await secondFactorFlow(email);
    const right = await useCode(three.b, three.flow, codes[1]!);
    expect(right.status).toBe(400);
    expect((right.body as Flow).ui.messages?.[0]?.text).toMatch(/Too many wrong authentication codes/);
  });

  it('bad input gets its Kratos message, never a 5xx', async () => {
    const email = 'codes-bad@example.com';
    await userWithCodes(email);
    const { b, flow } = await secondFactorFlow(email);
    for (const value of ['', 'x'.repeat(1_000), 'abc\u0000defg', 12345678, null]) {
      const res = await submitFlow(b, 'login', flow, {
        method: 'lookup_secret',
        lookup_secret: value,
        csrf_token: csrfOf(flow),
      });
      expect(res.status).toBe(400);
    }
  });
});
