import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, sql, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { openApiErrors } from '@acme/test-kit/openapi';
import { start as startUsers } from '@acme/users';
import {
  Browser,
  csrfOf,
  lastCode,
  login,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';
import { SoftAuthenticator } from '../../strategies/passkey/soft-authenticator.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 31, items 2(b) and 3: a self sign-up proves its address before it gets anything. No session
// at registration; the mailed code, entered in the browser that registered, issues it; the user
// service gives no token to an unproven address, nor to someone who never accepted the terms; and
// an invitation never hands the invited person an account whose starter still holds a way in. The
// real identity service (the harness) and the real user service, over HTTP.

const KEY = 'sign-up-proof-admin-key-0123456789-abcdef';
const PASSWORD = 'Signup-Password-2026!';
const NOT_VERIFIED = 4000010;
const WRONG_CODE = 4070006;
const NOTICE = 'Sign-in methods you did not set up were removed from your';

describe('identity: a self sign-up proves its address before it gets a session or a token', () => {
  let db: Database;
  let h: Harness;
  let usersAdmin: string;
  let usersPublic: string;
  let lab: string;
  const clock = new FakeClock(new Date('2026-11-28T10:00:00.000Z'));
  const closers: (() => Promise<void>)[] = [];

  const call = async (base: string, method: string, path: string, json?: unknown, cookie?: string) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(json ? { 'content-type': 'application/json' } : {}),
        ...(cookie ? { cookie } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const users = (method: string, path: string, json?: unknown) => call(usersAdmin, method, path, json);

  /** A registration in a new browser; answers the browser and the answer. */
  async function register(email: string) {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<any>(b, 'registration');
    const res = await submitFlow(b, 'registration', flow, {
      method: 'password',
      password: PASSWORD,
      traits: { email, name: { first: 'Mallory', last: 'Stranger' } },
      csrf_token: csrfOf(flow),
    });
    expect(res.status, res.text).toBe(200);
    return { b, res, verificationId: res.body.continue_with[0].flow.id as string };
  }
  const submitCode = (b: Browser, flowId: string, code: string) =>
    b.post(`/self-service/verification?flow=${flowId}`, {
      json: { method: 'code', code },
      accept: 'json',
    });
  const whoami = (b: Browser) => b.get('/sessions/whoami', { accept: 'json' });
  const verified = async (email: string) =>
    (
      await sql<{ verified: boolean }>`
        select verified from identity_verifiable_addresses where value = ${email}`.execute(db.kysely)
    ).rows[0]?.verified;
  const sessionsOf = async (identityId: string) =>
    Number(
      (
        await sql<{ n: number }>`
          select count(*)::int as n from identity_sessions where identity_id = ${identityId} and active`.execute(
          db.kysely,
        )
      ).rows[0]!.n,
    );
  /** What the authorization server asks at sign-in (consent) for the browser's session. */
  async function tokenClaims(b: Browser) {
    const me = await whoami(b);
    expect(me.status).toBe(200);
    return users('POST', '/admin/token-claims', {
      identitySessionId: me.body.id,
      subject: me.body.identity.id,
      purpose: 'sign-in',
    });
  }
  /** Pretends the address is proven (or not) in the database: the state of an account from before this fix. */
  const setVerified = (email: string, value: boolean) =>
    sql`update identity_verifiable_addresses set verified = ${value} where value = ${email}`.execute(
      db.kysely,
    );

  beforeAll(async () => {
    db = await createTestDb();
    const [usPub, usAdm] = await Promise.all([freePort(), freePort()]);
    usersAdmin = `http://localhost:${usAdm}`;
    usersPublic = `http://localhost:${usPub}`;
    h = await startHarness(
      {
        USERS_ADMIN_URL: usersAdmin,
        USERS_ADMIN_KEY: KEY,
        IDENTITY_ADMIN_KEY: KEY,
      },
      { db, clock },
    );
    closers.push(h.close);
    const service = await startUsers({
      db,
      logger: false,
      clock,
      mailer: createMemoryMailer(),
      env: {
        USERS_PUBLIC_PORT: String(usPub),
        USERS_ADMIN_PORT: String(usAdm),
        USERS_MANAGEMENT_PORT: '0',
        USERS_ADMIN_KEY: KEY,
        IDENTITY_ADMIN_KEY: KEY,
        IDENTITY_ADMIN_URL: h.adminUrl,
        IDENTITY_PUBLIC_URL: h.publicUrl,
        OAUTH2_ADMIN_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'silent',
      },
    });
    closers.push(service.close);
    const org = await users('POST', '/admin/organisations', {
      name: 'Lab',
      domains: ['lab.test'],
      products: ['Platform'],
    });
    expect(org.status).toBe(201);
    lab = org.body.id;
    expect((await users('PUT', `/admin/organisations/${lab}/self-signup`, { enabled: true })).status).toBe(
      200,
    );
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await db.close();
  });

  it("a stranger's self sign-up with someone else's address gets no session or token before the code", async () => {
    const email = 'ada@lab.test';
    const { b, res } = await register(email);
    // Kratos's answer without its session hook: the identity and the verification to show, no session.
    expect(res.body.session).toBeUndefined();
    expect(res.body.session_token).toBeUndefined();
    expect(res.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    expect(openApiErrors('kratos', '/self-service/registration', 'post', 200, res.body)).toEqual([]);
    expect(res.body.continue_with).toEqual([
      expect.objectContaining({
        action: 'show_verification_ui',
        flow: expect.objectContaining({ verifiable_address: email }),
      }),
    ]);
    expect((await whoami(b)).status).toBe(401);
    const identityId = res.body.identity.id as string;
    // The stranger knows the password, and still gets nothing: 4000010 on the flow, no session.
    const signIn = await login(new Browser(h.publicUrl), email, PASSWORD);
    expect(signIn.status).toBe(400);
    expect(messageIds(signIn.body)).toEqual([NOT_VERIFIED]);
    expect(signIn.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    expect(signIn.body.continue_with[0]).toMatchObject({ action: 'show_verification_ui' });
    expect(await sessionsOf(identityId)).toBe(0);
    expect(await verified(email)).toBe(false);

    // A session from before this rule (here made by pretending the address was proven for one
    // sign-in) still gets no token while the address is unproven.
    await setVerified(email, true);
    const old = new Browser(h.publicUrl);
    expect((await login(old, email, PASSWORD)).status).toBe(200);
    await setVerified(email, false);
    const claims = await tokenClaims(old);
    expect(claims.status).toBe(403);
    expect(claims.body.errorCode).toBe('EMAIL_NOT_VERIFIED');
  });

  it('the code proves the address: the browser that signed up gets its session, and no token until the terms are accepted', async () => {
    const email = 'grace@lab.test';
    const { b, res, verificationId } = await register(email);
    const done = await submitCode(b, verificationId, lastCode(h, email));
    expect(done.status, done.text).toBe(200);
    expect(done.body.state).toBe('passed_challenge');
    const me = await whoami(b);
    expect(me.status).toBe(200);
    expect(me.body.identity.id).toBe(res.body.identity.id);
    expect(me.body.identity.verifiable_addresses[0].verified).toBe(true);
    expect(me.body.authentication_methods).toEqual([
      expect.objectContaining({ method: 'password', aal: 'aal1' }),
    ]);

    // Terms not accepted: no token.
    const refused = await tokenClaims(b);
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('TERMS_NOT_ACCEPTED');
    const current = await call(usersPublic, 'GET', '/terms/current');
    const accept = await call(
      usersPublic,
      'POST',
      '/terms/accept',
      {
        documents: [
          { document: 'terms', version: current.body.terms.version },
          { document: 'privacy', version: current.body.privacy.version },
        ],
      },
      b.cookieHeader(),
    );
    expect(accept.status, JSON.stringify(accept.body)).toBe(200);
    const claims = await tokenClaims(b);
    expect(claims.status, JSON.stringify(claims.body)).toBe(200);
    expect(claims.body.access_token).toMatchObject({ role: 'member', products: ['Platform'] });
  });

  it('terms not accepted: no token, for a proven account that never accepted them', async () => {
    const email = 'terms@lab.test';
    const { b, verificationId } = await register(email);
    await submitCode(b, verificationId, lastCode(h, email));
    const first = await tokenClaims(b);
    expect(first.body.errorCode).toBe('TERMS_NOT_ACCEPTED');
    // Refused again at a later sign-in, until the person accepts them.
    const later = new Browser(h.publicUrl);
    expect((await login(later, email, PASSWORD)).status).toBe(200);
    const again = await tokenClaims(later);
    expect(again.status).toBe(403);
    expect(again.body.errorCode).toBe('TERMS_NOT_ACCEPTED');
  });

  it('a code entered in another browser proves the address but signs nobody in there; the person then signs in with the password', async () => {
    const email = 'elsewhere@lab.test';
    const { b, verificationId, res } = await register(email);
    const other = new Browser(h.publicUrl);
    const done = await submitCode(other, verificationId, lastCode(h, email));
    expect(done.body.state).toBe('passed_challenge');
    expect((await whoami(other)).status).toBe(401);
    expect((await whoami(b)).status).toBe(401);
    expect(await verified(email)).toBe(true);
    expect(await sessionsOf(res.body.identity.id)).toBe(0);
    expect((await login(b, email, PASSWORD)).status).toBe(200);
  });

  it('a sign-in before the code was entered mails a fresh code; entered in that browser, it signs the person in', async () => {
    const email = 'closedtab@lab.test';
    await register(email);
    const b = new Browser(h.publicUrl);
    const refused = await login(b, email, PASSWORD);
    expect(messageIds(refused.body)).toEqual([NOT_VERIFIED]);
    const next = refused.body.continue_with[0].flow;
    const done = await submitCode(b, next.id, lastCode(h, email));
    expect(done.body.state).toBe('passed_challenge');
    expect((await whoami(b)).status).toBe(200);
  });

  it('abuse: a replayed code, an expired code and a code of another flow give no session', async () => {
    // Another flow's code: each registration's code works only on its own flow.
    const x = await register('x@lab.test');
    const y = await register('y@lab.test');
    const cross = await submitCode(y.b, y.verificationId, lastCode(h, 'x@lab.test'));
    expect(cross.status).toBe(200);
    expect(messageIds(cross.body)).toEqual([WRONG_CODE]);
    expect((await whoami(y.b)).status).toBe(401);
    expect(await verified('y@lab.test')).toBe(false);
    expect(await verified('x@lab.test')).toBe(false);

    // Replayed: the flow is finished; a second submit is refused and makes no second session.
    const code = lastCode(h, 'x@lab.test');
    expect((await submitCode(x.b, x.verificationId, code)).body.state).toBe('passed_challenge');
    const replay = await submitCode(new Browser(h.publicUrl), x.verificationId, code);
    expect(replay.status).toBe(410);
    expect(replay.body.error.id).toBe('self_service_flow_replaced');
    const replayHere = await submitCode(x.b, x.verificationId, code);
    expect(replayHere.status).toBe(410);
    expect(await sessionsOf(x.res.body.identity.id)).toBe(1);

    // Expired: past the flow's lifetime the code proves nothing and signs nobody in.
    const z = await register('z@lab.test');
    const zCode = lastCode(h, 'z@lab.test');
    clock.advance(h.config.flowLifespanMs + 1000);
    const late = await submitCode(z.b, z.verificationId, zCode);
    expect(late.status).toBe(410);
    expect((await whoami(z.b)).status).toBe(401);
    expect(await verified('z@lab.test')).toBe(false);
  });

  it('abuse: 50 parallel submits of the right code in the registering browser make one session', async () => {
    const email = 'parallel@lab.test';
    const { b, verificationId, res } = await register(email);
    const code = lastCode(h, email);
    const answers = await Promise.all(Array.from({ length: 50 }, () => submitCode(b, verificationId, code)));
    // Each answer is the success, the finished flow's refusal, or the code guard's (the parallel
    // attempts are admitted before the code is compared); never a 500, and one session.
    for (const a of answers) {
      if (a.status === 200) expect(a.body.state).toBe('passed_challenge');
      else if (a.status === 400) expect(messageIds(a.body)).toEqual([4000001]);
      else expect([a.status, a.body?.error?.id]).toEqual([410, 'self_service_flow_replaced']);
    }
    expect(await sessionsOf(res.body.identity.id)).toBe(1);
  });

  it('an invitation does not adopt a stranger’s unverified account whose passkey still signs in', async () => {
    const email = 'linus@lab.test';
    const { res } = await register(email);
    const identityId = res.body.identity.id as string;
    // The stranger's account as it could be before this fix: a session and a passkey on an unproven
    // address (made here by pretending the address was proven while the stranger set them up).
    await setVerified(email, true);
    const stranger = new Browser(h.publicUrl);
    expect((await login(stranger, email, PASSWORD)).status).toBe(200);
    const auth = new SoftAuthenticator();
    const settings = await startFlow<any>(stranger, 'settings');
    const createData = settings.ui.nodes.find((n: any) => n.attributes.name === 'passkey_create_data');
    const added = await submitFlow(stranger, 'settings', settings, {
      method: 'passkey',
      passkey_settings_register: JSON.stringify(
        auth.create(JSON.parse(createData.attributes.value).credentialOptions.publicKey),
      ),
      passkey_display_name: 'Stranger',
      csrf_token: csrfOf(settings),
    });
    expect(added.status, added.text).toBe(200);
    await setVerified(email, false);
    const passkeySignIn = async () => {
      const pb = new Browser(h.publicUrl);
      const flow = await startFlow<any>(pb, 'login');
      const challenge = flow.ui.nodes.find((n: any) => n.attributes.name === 'passkey_challenge');
      return submitFlow(pb, 'login', flow, {
        method: 'passkey',
        passkey_login: JSON.stringify(auth.get(JSON.parse(challenge.attributes.value).publicKey)),
        csrf_token: csrfOf(flow),
      });
    };

    // The admin invites that address: the invitation takes the existing member over.
    const invited = await users('POST', '/admin/invitations', {
      organisationId: lab,
      email,
      firstName: 'Linus',
      lastName: 'Real',
      role: 'member',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body.identityId).toBe(identityId);

    // Nothing the stranger set up works any more, and the address was told.
    expect((await whoami(stranger)).status).toBe(401);
    const byPasskey = await passkeySignIn();
    expect(byPasskey.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    expect(byPasskey.status).toBe(400);
    const byPassword = await login(new Browser(h.publicUrl), email, PASSWORD);
    expect(byPassword.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    expect(await sessionsOf(identityId)).toBe(0);
    const types = await sql<{ type: string }>`
      select type from identity_credentials where identity_id = ${identityId}`.execute(db.kysely);
    expect(types.rows).toEqual([]);
    expect(h.mailbox.filter((m) => m.to === email && m.subject.startsWith(NOTICE))).toHaveLength(1);
    const events = await sql<{ type: string }>`
      select type from identity_security_events where subject_id = ${identityId} and type = 'account.reclaimed'`.execute(
      db.kysely,
    );
    expect(events.rows).toHaveLength(1);
  });

  it('a password recovery by the address’s owner does not leave a stranger’s password working on the now proven account', async () => {
    const email = 'ruth@lab.test';
    const { res } = await register(email);
    const owner = new Browser(h.publicUrl);
    const flow = await startFlow<any>(owner, 'recovery');
    const sent = await submitFlow(owner, 'recovery', flow, {
      method: 'code',
      email,
      csrf_token: csrfOf(flow),
    });
    expect(sent.status, sent.text).toBe(200);
    const recovered = await submitFlow(owner, 'recovery', sent.body, {
      method: 'code',
      code: lastCode(h, email),
      csrf_token: csrfOf(sent.body),
    });
    expect(recovered.status, recovered.text).toBe(422);
    expect((await whoami(owner)).status).toBe(200);
    expect(await verified(email)).toBe(true);
    // The stranger's password is gone (the owner sets their own next), and the owner was told.
    const stranger = await login(new Browser(h.publicUrl), email, PASSWORD);
    expect(stranger.setCookies.some((c) => c.startsWith('ory_kratos_session='))).toBe(false);
    expect(messageIds(stranger.body)).toEqual([4000006]);
    expect(h.mailbox.filter((m) => m.to === email && m.subject.startsWith(NOTICE))).toHaveLength(1);
    expect(await sessionsOf(res.body.identity.id)).toBe(1);
  });
});
