import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventPosition } from '@acme/identity-contract/security-events';
import { totpCodeAt } from '../../src/strategies/totp/totp.ts';
import { deleteExpiredSecurityEvents, NO_IDENTITY } from '../../src/db/security-events.ts';
import {
  Browser,
  createUser,
  csrfOf,
  DEMO_PASSWORD,
  lastCode,
  linkTotp,
  login,
  newLoginFlow,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../harness.ts';

// Issue 24: the identity service writes its own security events, in the transaction of the change,
// with who, whom, from where and the request id of the JSON logs; never a secret, code or token.

interface Flow {
  id: string;
  ui: { nodes: { attributes: { name?: string; id?: string; text?: { context?: unknown } } }[] };
}

interface Row {
  type: string;
  actor_kind: string;
  actor_id: string | null;
  subject_id: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: Record<string, string>;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ IDENTITY_LOCKOUT_THRESHOLD: '3' });
});
afterAll(async () => {
  await h?.close();
});

const UA = 'Mozilla/5.0 (X11; Linux x86_64) EventsTest/1.0';

async function eventsOf(subjectId: string): Promise<Row[]> {
  const rows = await h.app.ctx.db
    .selectFrom('identity_security_events')
    .selectAll()
    .where('subject_id', '=', subjectId)
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
  return rows as Row[];
}

const typesOf = async (subjectId: string) => (await eventsOf(subjectId)).map((e) => e.type);

/** A password sign-in with a user agent and a request id of our choosing. */
async function signIn(b: Browser, email: string, password = DEMO_PASSWORD, requestId?: string) {
  const { flow, csrf } = await newLoginFlow(b);
  return b.post(`/self-service/login?flow=${flow.id}`, {
    json: { method: 'password', identifier: email, password, csrf_token: csrf },
    accept: 'json',
    headers: { 'user-agent': UA, ...(requestId ? { 'x-request-id': requestId } : {}) },
  });
}

const admin = (path: string, init: RequestInit = {}) => fetch(`${h.adminUrl}${path}`, init);

describe('security events written by the identity service', () => {
  it('a password sign-in records who, how, from where, and the request id of the logs', async () => {
    const email = 'ev-signin@example.com';
    const id = await createUser(h, email);
    const b = new Browser(h.publicUrl);
    const res = await signIn(b, email, DEMO_PASSWORD, 'req-signin-0001');
    expect(res.status, res.text).toBe(200);
    const [event, ...more] = await eventsOf(id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      type: 'signin.succeeded',
      actor_kind: 'person',
      actor_id: id,
      subject_id: id,
      ip: '127.0.0.1',
      user_agent: UA,
      request_id: 'req-signin-0001',
      details: { method: 'password', aal: 'aal1' },
    });
    expect(res.headers.get('x-request-id')).toBe('req-signin-0001');
  });

  it('wrong passwords record failures with their reason, the lockout they start, and the unlock', async () => {
    const email = 'ev-lockout@example.com';
    const id = await createUser(h, email);
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 3; i++) expect((await signIn(b, email, 'wrong password!!')).status).toBe(400);
    // Locked now: the right password is refused, and recorded as such.
    expect((await signIn(b, email)).status).toBe(400);
    const events = await eventsOf(id);
    expect(events.map((e) => [e.type, e.details.reason ?? ''])).toEqual([
      ['signin.failed', 'invalid_credentials'],
      ['signin.failed', 'invalid_credentials'],
      ['signin.failed', 'invalid_credentials'],
      ['account.locked', ''],
      ['signin.failed', 'locked'],
    ]);
    const locked = events.find((e) => e.type === 'account.locked')!;
    expect(locked.actor_kind).toBe('system');
    expect(new Date(locked.details.until!).getTime()).toBeGreaterThan(h.clock.now().getTime());
    expect(events[0]).toMatchObject({ ip: '127.0.0.1', user_agent: UA, details: { method: 'password' } });

    const unlock = await admin('/admin/lockouts/reset', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-unlock-0001' },
      body: JSON.stringify({ identifier: email }),
    });
    expect(unlock.status).toBe(204);
    const unlocked = (await eventsOf(id)).at(-1)!;
    expect(unlocked).toMatchObject({
      type: 'account.unlocked',
      actor_kind: 'operator',
      actor_id: null,
      request_id: 'req-unlock-0001',
    });
    expect((await signIn(b, email)).status).toBe(200);
  });

  it('an unknown address costs the same write as a known one: filed under no identity, without the address', async () => {
    const typed = 'nobody-here@example.com';
    const res = await signIn(new Browser(h.publicUrl), typed, 'a mistyped secret 2026', 'req-unknown-0001');
    expect(res.status).toBe(400);
    const [event, ...more] = (await eventsOf(NO_IDENTITY)).filter((e) => e.request_id === 'req-unknown-0001');
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      type: 'signin.failed',
      actor_kind: 'person',
      actor_id: null,
      subject_id: NO_IDENTITY,
      ip: '127.0.0.1',
      user_agent: UA,
      details: { method: 'password', reason: 'unknown_identifier' },
    });
    expect(JSON.stringify(event)).not.toContain(typed);
    expect(JSON.stringify(event)).not.toContain('a mistyped secret 2026');
  });

  it('2FA added, codes regenerated and used, wrong codes, 2FA removed and reset, password changed, sessions ended', async () => {
    const email = 'ev-2fa@example.com';
    const id = await createUser(h, email);
    const b = new Browser(h.publicUrl);
    expect((await login(b, email)).status).toBe(200);
    const { secret, res } = await linkTotp(h, b);
    expect(res.status, res.text).toBe(200);
    const settings = await startFlow<Flow>(b, 'settings');
    const made = await submitFlow(b, 'settings', settings, {
      method: 'lookup_secret',
      lookup_secret_regenerate: true,
      csrf_token: csrfOf(settings),
    });
    const codes = (
      made.body.ui.nodes.find((n: Flow['ui']['nodes'][number]) => n.attributes.id === 'lookup_secret_codes')
        .attributes.text.context as { secrets: { text: string }[] }
    ).secrets.map((s) => s.text);
    const confirmed = await submitFlow(b, 'settings', settings, {
      method: 'lookup_secret',
      lookup_secret_confirm: true,
      csrf_token: csrfOf(settings),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    h.clock.advance(60_000);

    // A second browser: password, a wrong TOTP code, then a backup code.
    const other = new Browser(h.publicUrl);
    expect((await login(other, email)).status).toBe(422);
    const aal2 = await startFlow<Flow>(other, 'login', '?aal=aal2');
    const rightCode = totpCodeAt(secret, h.clock.now());
    const wrongCode = rightCode === '000000' ? '111111' : '000000';
    const wrong = await submitFlow(other, 'login', aal2, {
      method: 'totp',
      totp_code: wrongCode,
      csrf_token: csrfOf(aal2),
    });
    expect(wrong.status).toBe(400);
    const used = await submitFlow(other, 'login', aal2, {
      method: 'lookup_secret',
      lookup_secret: codes[0],
      csrf_token: csrfOf(aal2),
    });
    expect(used.status, used.text).toBe(200);

    // The first browser changes the password (its other session ends), then removes TOTP.
    const pw = await startFlow<Flow>(b, 'settings');
    const NEW_PASSWORD = 'a brand new passphrase 2026';
    expect(
      (
        await submitFlow(b, 'settings', pw, {
          method: 'password',
          password: NEW_PASSWORD,
          csrf_token: csrfOf(pw),
        })
      ).status,
    ).toBe(200);
    const off = await startFlow<Flow>(b, 'settings');
    expect(
      (await submitFlow(b, 'settings', off, { method: 'totp', totp_unlink: true, csrf_token: csrfOf(off) }))
        .status,
    ).toBe(200);

    // The operator (or an org admin through the user service) resets 2FA and ends every session.
    expect((await linkTotp(h, b)).res.status).toBe(200);
    expect((await admin(`/admin/identities/${id}/credentials/totp`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/admin/identities/${id}/sessions`, { method: 'DELETE' })).status).toBe(204);

    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual([
      'signin.succeeded',
      'two_factor.added',
      'backup_codes.regenerated',
      'signin.succeeded',
      'signin.failed',
      'backup_code.used',
      'signin.succeeded',
      'password.changed',
      'two_factor.removed',
      'two_factor.added',
      'two_factor.reset',
      'session.ended',
    ]);
    const byType = (t: string) => events.filter((e) => e.type === t);
    expect(byType('signin.failed')[0]!.details).toEqual({ method: 'totp', reason: 'invalid_code' });
    expect(byType('backup_code.used')[0]!.details).toEqual({ remaining: '11' });
    expect(byType('signin.succeeded').map((e) => e.details.method)).toEqual([
      'password',
      'password',
      'lookup_secret',
    ]);
    expect(byType('two_factor.reset')[0]).toMatchObject({
      actor_kind: 'operator',
      details: { method: 'totp' },
    });
    expect(byType('session.ended')[0]).toMatchObject({ actor_kind: 'operator', details: { scope: 'all' } });

    // No secret, code or token in any stored event of this person.
    const stored = JSON.stringify(events);
    const secrets = [DEMO_PASSWORD, NEW_PASSWORD, secret, rightCode, wrongCode, ...codes];
    for (const cookie of [...b.cookies.values(), ...other.cookies.values()]) secrets.push(cookie);
    for (const s of secrets) expect(stored).not.toContain(s);
  });

  it('recovery and logout are recorded, without the recovery code or the logout token', async () => {
    const email = 'ev-recovery@example.com';
    const id = await createUser(h, email);
    const b = new Browser(h.publicUrl);
    const f = await startFlow<Flow>(b, 'recovery');
    const sent = await submitFlow(b, 'recovery', f, { method: 'code', email, csrf_token: csrfOf(f) });
    expect(sent.status, sent.text).toBe(200);
    const code = lastCode(h, email);
    const ok = await submitFlow(b, 'recovery', sent.body, { method: 'code', code, csrf_token: csrfOf(f) });
    expect(ok.status).toBe(422);
    const logout = await b.get('/self-service/logout/browser', { accept: 'json' });
    const token = logout.body.logout_token as string;
    expect((await b.get(`/self-service/logout?token=${token}`, { accept: 'json' })).status).toBe(204);
    const events = await eventsOf(id);
    expect(events.map((e) => [e.type, e.details.method ?? e.details.scope])).toEqual([
      ['recovery.used', 'code'],
      ['session.ended', 'logout'],
    ]);
    expect(events[1]).toMatchObject({ actor_kind: 'person', actor_id: id });
    const stored = JSON.stringify(events);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(token);
  });

  it('an audit gap: a password change whose event cannot be written is not made', async () => {
    const email = 'ev-atomic@example.com';
    const id = await createUser(h, email);
    const b = new Browser(h.publicUrl);
    expect((await login(b, email)).status).toBe(200);
    const flow = await startFlow<Flow>(b, 'settings');
    await sql`alter table identity_security_events add constraint ev_refuse_password check (type <> 'password.changed') not valid`.execute(
      h.app.ctx.db,
    );
    try {
      const res = await submitFlow(b, 'settings', flow, {
        method: 'password',
        password: 'a change that was never made 2026',
        csrf_token: csrfOf(flow),
      });
      expect(res.status, res.text).toBe(500);
    } finally {
      await sql`alter table identity_security_events drop constraint ev_refuse_password`.execute(
        h.app.ctx.db,
      );
    }
    // The change and its event commit together: the old password still works.
    expect((await login(new Browser(h.publicUrl), email)).status).toBe(200);
    expect(await typesOf(id)).toEqual(['signin.succeeded', 'signin.succeeded']);
  });
});

describe('GET /admin/security-events', () => {
  it('lists the named identities newest first, pages by position, and filters by type and time', async () => {
    const a = await createUser(h, 'ev-list-a@example.com');
    const c = await createUser(h, 'ev-list-c@example.com');
    const start = h.clock.now();
    for (const [email, n] of [
      ['ev-list-a@example.com', 3],
      ['ev-list-c@example.com', 2],
    ] as const) {
      for (let i = 0; i < n; i++) {
        h.clock.advance(1000);
        expect((await login(new Browser(h.publicUrl), email)).status).toBe(200);
      }
    }
    const all = await admin(`/admin/security-events?subject_id=${a}&subject_id=${c}`);
    expect(all.status).toBe(200);
    const events = (await all.json()) as { occurred_at: string; subject_id: string; id: string }[];
    expect(events.map((e) => e.subject_id)).toEqual([c, c, a, a, a]);
    expect(events.map((e) => e.occurred_at)).toEqual([...events.map((e) => e.occurred_at)].sort().reverse());

    const first = await admin(`/admin/security-events?subject_id=${a}&subject_id=${c}&page_size=2`);
    const page1 = (await first.json()) as typeof events;
    expect(page1.map((e) => e.id)).toEqual(events.slice(0, 2).map((e) => e.id));
    const link = first.headers.get('link')!;
    expect(link).toMatch(/rel="next"/);
    const next = new URL(/<([^>]+)>/.exec(link)![1]!);
    expect(next.searchParams.getAll('subject_id')).toEqual([a, c]);
    expect(next.searchParams.get('page_token')).toBe(eventPosition(page1[1]!.occurred_at, page1[1]!.id));
    const page2 = (await (await admin(`${next.pathname}${next.search}`)).json()) as typeof events;
    expect(page2.map((e) => e.id)).toEqual(events.slice(2, 4).map((e) => e.id));

    const since = new Date(start.getTime() + 3500).toISOString();
    const recent = (await (
      await admin(
        `/admin/security-events?subject_id=${a}&subject_id=${c}&since=${since}&type=signin.succeeded`,
      )
    ).json()) as typeof events;
    expect(recent.map((e) => e.subject_id)).toEqual([c, c]);
    const none = (await (
      await admin(`/admin/security-events?subject_id=${a}&type=account.locked`)
    ).json()) as [];
    expect(none).toEqual([]);
  });

  it('refuses what it cannot answer with a Kratos 400, never a 500', async () => {
    const id = crypto.randomUUID();
    const many = Array.from({ length: 101 }, () => `subject_id=${crypto.randomUUID()}`).join('&');
    for (const query of [
      // Without subject_id it is the cursor feed (issue 35): its own parameters only.
      'after=garbage',
      'limit=0',
      'page_size=5',
      'subject_id=not-a-uuid',
      many,
      `subject_id=${id}&page_token=garbage`,
      `subject_id=${id}&page_size=0`,
      `subject_id=${id}&type=not.a.type`,
      `subject_id=${id}&since=yesterday`,
      `subject_id=${id}%00`,
    ]) {
      const res = await admin(`/admin/security-events?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(400);
    }
  });

  it("answers a member's last sign-in and lockout (GET /admin/identities/{id}/sign-in)", async () => {
    const email = 'ev-facts@example.com';
    const id = await createUser(h, email);
    const never = await (await admin(`/admin/identities/${id}/sign-in`)).json();
    expect(never).toEqual({
      last_sign_in: null,
      lockout: { locked: false, locked_until: null, failed_attempts: 0 },
    });
    expect((await signIn(new Browser(h.publicUrl), email)).status).toBe(200);
    for (let i = 0; i < 3; i++) await signIn(new Browser(h.publicUrl), email, 'wrong password!!');
    const facts = (await (await admin(`/admin/identities/${id}/sign-in`)).json()) as {
      last_sign_in: { at: string; method: string; ip_address: string };
      lockout: { locked: boolean; locked_until: string; failed_attempts: number };
    };
    expect(facts.last_sign_in).toEqual({
      at: h.clock.now().toISOString(),
      method: 'password',
      ip_address: '127.0.0.1',
    });
    expect(facts.lockout.locked).toBe(true);
    expect(facts.lockout.failed_attempts).toBe(3);
    expect(new Date(facts.lockout.locked_until).getTime()).toBeGreaterThan(h.clock.now().getTime());
    expect((await admin(`/admin/identities/${crypto.randomUUID()}/sign-in`)).status).toBe(404);
    expect((await admin('/admin/identities/nope/sign-in')).status).toBe(404);
  });
});

describe('retention', () => {
  it('deletes events past the retention in batches while sign-ins keep writing', async () => {
    const email = 'ev-retention@example.com';
    const id = await createUser(h, email);
    const old = new Date(h.clock.now().getTime() - 401 * 86_400_000);
    await sql`insert into identity_security_events (id, occurred_at, type, actor_kind, subject_id)
      select gen_random_uuid(), ${old}::timestamptz, 'signin.succeeded', 'person', ${id}::uuid
      from generate_series(1, 2500)`.execute(h.app.ctx.db);
    const [deleted, signedIn] = await Promise.all([
      deleteExpiredSecurityEvents(h.app.ctx.db, h.clock.now(), 400, 1000),
      Promise.all([1, 2, 3].map(() => login(new Browser(h.publicUrl), email))),
    ]);
    expect(deleted).toBe(2500);
    expect(signedIn.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await typesOf(id)).toEqual(['signin.succeeded', 'signin.succeeded', 'signin.succeeded']);
  });

  it('IDENTITY_SECURITY_EVENTS=off (the bench baseline) writes nothing, and is refused in production', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    expect(() =>
      loadConfig({
        IDENTITY_SECURITY_EVENTS: 'off',
        NODE_ENV: 'production',
        IDENTITY_CODE_SECRET: 'x'.repeat(40),
        // Without SAML: production would first refuse its development keys.
        IDENTITY_METHODS: 'password,totp,lookup_secret,code,profile,oidc,passkey,webauthn',
      }),
    ).toThrow(/bench only/);
    const off = await startHarness({ IDENTITY_SECURITY_EVENTS: 'off' }, { db: h.db, clock: h.clock });
    try {
      const email = 'ev-off@example.com';
      const id = await createUser(off, email);
      expect((await login(new Browser(off.publicUrl), email)).status).toBe(200);
      expect(await typesOf(id)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
