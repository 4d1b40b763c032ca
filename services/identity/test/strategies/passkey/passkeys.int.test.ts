import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiErrors } from '@acme/test-kit/openapi';
import {
  Browser,
  createUser,
  csrfOf,
  linkTotp,
  login,
  messageIds,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../../harness.ts';
import { loadConfig } from '../../../src/config.ts';
import { SoftAuthenticator } from './soft-authenticator.ts';

// Passkeys (Kratos `passkey`: sign-in without a password) and security keys (`webauthn`: the second
// factor), on @simplewebauthn/server, answered by a software authenticator that speaks the real
// protocol (P-256 keys, authenticator data, client data, CBOR attestation `none`).

interface Node {
  group: string;
  attributes: { name?: string; id?: string; value?: unknown; text?: { id: number } };
  meta: { label?: { id: number; text: string; context?: Record<string, unknown> } };
  messages: { id: number }[];
}
interface Flow {
  id: string;
  ui: { nodes: Node[]; messages?: { id: number; text: string }[] };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const node = (f: Flow, name: string) => f.ui.nodes.find((n) => n.attributes.name === name);
const valueOf = (f: Flow, name: string) => String(node(f, name)?.attributes.value ?? '');
const createOptions = (f: Flow) =>
  (JSON.parse(valueOf(f, 'passkey_create_data')) as { credentialOptions: { publicKey: never } })
    .credentialOptions.publicKey;
const loginOptions = (f: Flow, name = 'passkey_challenge') =>
  (JSON.parse(valueOf(f, name)) as { publicKey: { challenge: string } }).publicKey;
const whoami = async (b: Browser) => (await b.get('/sessions/whoami', { accept: 'json' })).body;

/** Answers a settings flow's passkey challenge with a new key of `auth` (the browser's register submit). */
const registerPasskey = (b: Browser, flow: Flow, auth: SoftAuthenticator, name: string) =>
  submitFlow(b, 'settings', flow, {
    method: 'passkey',
    passkey_settings_register: JSON.stringify(auth.create(createOptions(flow))),
    passkey_display_name: name,
    csrf_token: csrfOf(flow),
  });

/** A signed-in user with a registered passkey; answers the authenticator and the browser. */
async function userWithPasskey(email: string, name = 'Laptop') {
  const id = await createUser(h, email);
  const b = new Browser(h.publicUrl);
  expect((await login(b, email)).status).toBe(200);
  const auth = new SoftAuthenticator();
  const res = await registerPasskey(b, await startFlow<Flow>(b, 'settings'), auth, name);
  expect(res.status, res.text).toBe(200);
  return { b, auth, id };
}

/** A new browser's login flow and the answer of `auth` to its challenge. */
async function passkeyAnswer(auth: SoftAuthenticator, o: Parameters<SoftAuthenticator['get']>[1] = {}) {
  const b = new Browser(h.publicUrl);
  const flow = await startFlow<Flow>(b, 'login');
  return { b, flow, answer: auth.get(loginOptions(flow), o) };
}

const signIn = (b: Browser, flow: Flow, answer: unknown) =>
  submitFlow(b, 'login', flow, {
    method: 'passkey',
    passkey_login: typeof answer === 'string' ? answer : JSON.stringify(answer),
    csrf_token: csrfOf(flow),
  });

describe('passkeys in settings', () => {
  it('registers a passkey with its name, lists, renames and removes it, mailing the owner on add and remove', async () => {
    const email = 'pk-settings@example.com';
    const { b, auth, id } = await userWithPasskey(email);
    expect(h.mailbox.filter((m) => m.to === email && /passkey was added/.test(m.subject))).toHaveLength(1);
    const flow = await startFlow<Flow>(b, 'settings');
    const remove = node(flow, 'passkey_remove')!;
    expect(remove.meta.label).toMatchObject({
      id: 1050020,
      context: { display_name: 'Laptop', last_used_at: null },
    });
    expect(remove.attributes.value).toBe(auth.keys[0]!.id.toString('hex'));
    expect(node(flow, 'passkey_register_trigger')).toBeDefined();
    expect(flow.ui.nodes.find((n) => n.attributes.id === 'webauthn_script')).toBeDefined();
    // The settings flow with its passkey and security-key nodes keeps Kratos's shape.
    expect(openApiErrors('kratos', '/self-service/settings/flows', 'get', 200, flow)).toEqual([]);

    const renamed = await submitFlow(b, 'settings', flow, {
      method: 'passkey',
      passkey_rename: remove.attributes.value,
      passkey_display_name: 'Work laptop',
      csrf_token: csrfOf(flow),
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(node(renamed.body as Flow, 'passkey_remove')!.meta.label!.context!.display_name).toBe(
      'Work laptop',
    );

    const removed = await submitFlow(b, 'settings', flow, {
      method: 'passkey',
      passkey_remove: remove.attributes.value,
      csrf_token: csrfOf(flow),
    });
    expect(removed.status, removed.text).toBe(200);
    expect(node(removed.body as Flow, 'passkey_remove')).toBeUndefined();
    expect(h.mailbox.filter((m) => m.to === email && /passkey was removed/.test(m.subject))).toHaveLength(1);
    // The security event log has the add and the remove (not the rename), in the same transactions.
    const events = await h.app.ctx.db
      .selectFrom('identity_security_events')
      .select(['type'])
      .where('subject_id', '=', id)
      .where('type', 'like', 'passkey.%')
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['passkey.added', 'passkey.removed']);
    // A removed passkey signs nobody in.
    const { b: other, flow: lf, answer } = await passkeyAnswer(auth);
    expect((await signIn(other, lf, answer)).status).toBe(400);
  });

  it('a passkey added in a later settings visit signs in', async () => {
    const { b, auth, id } = await userWithPasskey('pk-second@example.com');
    // A later visit: a new settings flow (the session's identity, as every settings flow starts).
    const later = await startFlow<Flow>(b, 'settings');
    const phone = new SoftAuthenticator();
    const res = await registerPasskey(b, later, phone, 'Phone');
    expect(res.status, res.text).toBe(200);
    const { b: other, flow, answer } = await passkeyAnswer(phone);
    const signedIn = await signIn(other, flow, answer);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.session.identity.id).toBe(id);
    // The first key signs in too: both are under the identity's one user handle.
    const first = await passkeyAnswer(auth);
    expect((await signIn(first.b, first.flow, first.answer)).status).toBe(200);
    expect(phone.keys[0]!.userHandle).toBe(auth.keys[0]!.userHandle);
  });

  it('two settings flows opened before the first passkey: the second key is stored under the handle it was made for', async () => {
    const email = 'pk-two-flows@example.com';
    const id = await createUser(h, email);
    const b = new Browser(h.publicUrl);
    expect((await login(b, email)).status).toBe(200);
    const [one, two] = [await startFlow<Flow>(b, 'settings'), await startFlow<Flow>(b, 'settings')];
    const laptop = new SoftAuthenticator();
    expect((await registerPasskey(b, one, laptop, 'Laptop')).status).toBe(200);
    // The other flow offered a handle of its own before any key was stored: its key is refused, and
    // the form comes back offering the identity's handle, under which the next key is stored.
    const stale = await registerPasskey(b, two, new SoftAuthenticator(), 'Stale');
    expect(stale.status).toBe(400);
    expect(stale.body.ui.messages[0].text).toMatch(/expired or was already answered/);
    const retried = stale.body as Flow;
    expect(createOptions(retried)).toMatchObject({ user: { id: laptop.keys[0]!.userHandle } });
    const phone = new SoftAuthenticator();
    expect((await registerPasskey(b, retried, phone, 'Phone')).status).toBe(200);
    const { b: other, flow, answer } = await passkeyAnswer(phone);
    const signedIn = await signIn(other, flow, answer);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.session.identity.id).toBe(id);
  });

  it('non-privileged session: adding or removing a passkey is refused with session_refresh_required', async () => {
    const { b, auth } = await userWithPasskey('pk-stale@example.com');
    h.clock.advance(2 * 3600_000); // past PRIVILEGED_SESSION_MAX_AGE (1 h)
    const flow = await startFlow<Flow>(b, 'settings');
    for (const body of [
      { passkey_settings_register: JSON.stringify(new SoftAuthenticator().create(createOptions(flow))) },
      { passkey_remove: auth.keys[0]!.id.toString('hex') },
    ]) {
      const res = await submitFlow(b, 'settings', flow, {
        method: 'passkey',
        ...body,
        csrf_token: csrfOf(flow),
      });
      expect(res.status).toBe(403);
      expect(res.body.error.id).toBe('session_refresh_required');
    }
    h.clock.advance(-2 * 3600_000);
  });

  it('malformed credential JSON gets the Kratos message in the flow (400), never a 5xx', async () => {
    await createUser(h, 'pk-malformed@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'pk-malformed@example.com');
    const flow = await startFlow<Flow>(b, 'settings');
    for (const bad of [
      '{',
      '[]',
      'null',
      '"x"',
      '{"id":1}',
      JSON.stringify({ id: 'a', rawId: 'a', type: 'public-key', response: {} }),
      'x'.repeat(3000),
    ]) {
      const res = await submitFlow(b, 'settings', flow, {
        method: 'passkey',
        passkey_settings_register: bad,
        csrf_token: csrfOf(flow),
      });
      expect(res.status, bad).toBe(400);
      expect(messageIds(res.body as Flow)).toEqual([4000001]);
    }
    // Oversized: the Kratos envelope 413 (login and settings take IDENTITY_WEBAUTHN_BODY_LIMIT, 16 KB).
    const big = await submitFlow(b, 'settings', flow, {
      method: 'passkey',
      passkey_settings_register: 'x'.repeat(17_000),
      csrf_token: csrfOf(flow),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(413);
    const login1 = await startFlow<Flow>(b, 'login', '?refresh=true');
    for (const bad of [
      '{',
      '{"id":"a","rawId":"a","type":"public-key","response":{"clientDataJSON":"!!"}}',
      '',
    ]) {
      const res = await signIn(b, login1, bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.ui.messages[0].id).toBe(4000001);
    }
  });
  it('the cap of 20 keys holds in parallel (50 registrations at once, 18 keys already): exactly 20 stored, the rest refused', async () => {
    const email = 'pk-cap@example.com';
    const { b, auth, id } = await userWithPasskey(email, 'Key 0');
    for (let i = 1; i < 18; i++) {
      const res = await registerPasskey(b, await startFlow<Flow>(b, 'settings'), auth, `Key ${i}`);
      expect(res.status, res.text).toBe(200);
    }
    // Fifty settings flows, each with its own challenge, answered by fifty new keys at once.
    const flows: Flow[] = [];
    for (let i = 0; i < 50; i++) flows.push(await startFlow<Flow>(b, 'settings'));
    const results = await Promise.all(
      flows.map((flow, i) => registerPasskey(b, flow, new SoftAuthenticator(), `Parallel ${i}`)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 400);
    expect(refused).toHaveLength(48);
    for (const r of refused)
      expect(r.body.ui.messages.map((m: { id: number; text: string }) => [m.id, m.text])).toEqual([
        [4000001, 'At most 20 keys can be registered. Remove one first.'],
      ]);
    const row = await h.app.ctx.db
      .selectFrom('identity_credentials')
      .select('config')
      .where('identity_id', '=', id)
      .where('type', '=', 'passkey')
      .executeTakeFirstOrThrow();
    expect((row.config as { credentials: unknown[] }).credentials).toHaveLength(20);
    // Only the keys stored were announced: 20 mails and 20 security events, not one per answer.
    expect(h.mailbox.filter((m) => m.to === email && /passkey was added/.test(m.subject))).toHaveLength(20);
    const events = await h.app.ctx.db
      .selectFrom('identity_security_events')
      .select('id')
      .where('subject_id', '=', id)
      .where('type', '=', 'passkey.added')
      .execute();
    expect(events).toHaveLength(20);
  });
});

describe('signing in with a passkey', () => {
  it('signs in with the passkey alone: aal2 when the authenticator verified the user, aal1 without', async () => {
    const { auth } = await userWithPasskey('pk-login@example.com');
    const verified = await passkeyAnswer(auth);
    const res = await signIn(verified.b, verified.flow, verified.answer);
    expect(res.status, res.text).toBe(200);
    expect(res.body.session.authentication_methods.at(-1)).toMatchObject({ method: 'passkey', aal: 'aal2' });
    expect((await whoami(verified.b)).authenticator_assurance_level).toBe('aal2');

    const presence = await passkeyAnswer(auth, { userVerified: false });
    const res2 = await signIn(presence.b, presence.flow, presence.answer);
    expect(res2.status, res2.text).toBe(200);
    expect((await whoami(presence.b)).authenticator_assurance_level).toBe('aal1');
  });

  it('a person with TOTP whose passkey verified them is aal2 at once; without UV the second factor is asked', async () => {
    const email = 'pk-totp@example.com';
    const { b, auth } = await userWithPasskey(email);
    expect((await linkTotp(h, b)).res.status).toBe(200);
    const uv = await passkeyAnswer(auth);
    expect((await signIn(uv.b, uv.flow, uv.answer)).status).toBe(200);
    const up = await passkeyAnswer(auth, { userVerified: false });
    const res = await signIn(up.b, up.flow, up.answer);
    expect(res.status).toBe(422);
    expect(res.body.redirect_browser_to).toContain('aal=aal2');
  });

  it('password confirmation (refresh): offers the person their own passkeys only, and a passkey confirms it', async () => {
    const { b, auth, id } = await userWithPasskey('pk-refresh@example.com');
    const flow = await startFlow<Flow>(b, 'login', '?refresh=true');
    const options = loginOptions(flow) as unknown as { allowCredentials: { id: string }[] };
    expect(options.allowCredentials).toHaveLength(1);
    const res = await signIn(b, flow, auth.get(loginOptions(flow)));
    expect(res.status, res.text).toBe(200);
    expect(res.body.session.identity.id).toBe(id);
    expect(res.body.session.authentication_methods.at(-1)).toMatchObject({ method: 'passkey' });
    // A person without a passkey is not offered one on their password confirmation.
    await createUser(h, 'pk-refresh-none@example.com');
    const none = new Browser(h.publicUrl);
    await login(none, 'pk-refresh-none@example.com');
    expect(node(await startFlow<Flow>(none, 'login', '?refresh=true'), 'passkey_challenge')).toBeUndefined();
  });

  it("another person's passkey does not answer a signed-in person's password confirmation", async () => {
    const { b: victim, id } = await userWithPasskey('pk-refresh-victim@example.com');
    const { auth: thief } = await userWithPasskey('pk-refresh-thief@example.com');
    const flow = await startFlow<Flow>(victim, 'login', '?refresh=true');
    const res = await signIn(victim, flow, thief.get(loginOptions(flow)));
    expect(res.status).toBe(400);
    expect(res.body.ui.messages[0].text).toMatch(/could not be verified/);
    expect((await whoami(victim)).identity.id).toBe(id);
  });

  it('forged assertion: a wrong signature gets the Kratos message and no session', async () => {
    const { auth } = await userWithPasskey('pk-forged@example.com');
    const { b, flow, answer } = await passkeyAnswer(auth, { forge: true });
    const res = await signIn(b, flow, answer);
    expect(res.status).toBe(400);
    expect(res.body.ui.messages.map((m: { text: string }) => m.text)).toEqual([
      'The passkey or security key could not be verified. Please try again.',
    ]);
    expect(res.setCookies.join()).not.toMatch(/session/);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('replayed challenge: the same answer a second time is refused, and the form carries a new challenge', async () => {
    const { auth } = await userWithPasskey('pk-replay@example.com');
    const { b, flow, answer } = await passkeyAnswer(auth);
    expect((await signIn(b, flow, answer)).status).toBe(200);
    const thief = new Browser(h.publicUrl);
    thief.cookies.set(...([...b.cookies].find(([k]) => k.startsWith('csrf_token'))! as [string, string]));
    const res = await signIn(thief, flow, answer);
    expect(res.status).toBe(400);
    expect(res.body.ui.messages[0].text).toMatch(/expired or was already answered/);
    expect(loginOptions(res.body as Flow).challenge).not.toBe(loginOptions(flow).challenge);
    expect((await thief.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it('a passkey from another relying party (rpId) or used on another origin is refused', async () => {
    const { auth } = await userWithPasskey('pk-phish@example.com');
    for (const o of [
      { rpId: 'evil.example' },
      { origin: 'https://evil.example' },
      { origin: 'http://localhost:4999' },
    ]) {
      const { b, flow, answer } = await passkeyAnswer(auth, o);
      const res = await signIn(b, flow, answer);
      expect(res.status, JSON.stringify(o)).toBe(400);
      expect(res.body.ui.messages[0].id).toBe(4000001);
      expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    }
    // A passkey registered for another relying party is not accepted in settings either.
    const b = new Browser(h.publicUrl);
    await login(b, 'pk-phish@example.com');
    const flow = await startFlow<Flow>(b, 'settings');
    const res = await submitFlow(b, 'settings', flow, {
      method: 'passkey',
      passkey_settings_register: JSON.stringify(
        new SoftAuthenticator().create(createOptions(flow), { rpId: 'evil.example' }),
      ),
      csrf_token: csrfOf(flow),
    });
    expect(res.status).toBe(400);
  });

  it('replayed challenge in parallel: 50 submissions of one answer give exactly one session', async () => {
    const { auth, id } = await userWithPasskey('pk-parallel@example.com');
    const sessions = () =>
      h.app.ctx.db
        .selectFrom('identity_sessions')
        .select('id')
        .where('identity_id', '=', id)
        .execute()
        .then((rows) => rows.length);
    const before = await sessions();
    const { b, flow, answer } = await passkeyAnswer(auth);
    const csrf = [...b.cookies].find(([k]) => k.startsWith('csrf_token'))! as [string, string];
    const results = await Promise.all(
      Array.from({ length: 50 }, () => {
        const each = new Browser(h.publicUrl);
        each.cookies.set(...csrf);
        return signIn(each, flow, answer);
      }),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 400);
    expect(refused).toHaveLength(49);
    // Spent, or (read after a refusal renewed the flow's challenge) not the flow's challenge any more.
    for (const r of refused) {
      expect(r.body.ui.messages[0].text).toMatch(/expired or was already answered|could not be verified/);
    }
    // Nothing half-written: one new session, one spent challenge.
    expect(await sessions()).toBe(before + 1);
    const spent = await h.app.ctx.db
      .selectFrom('identity_webauthn_spent_challenges')
      .select('challenge')
      .where('challenge', '=', loginOptions(flow).challenge)
      .execute();
    expect(spent).toHaveLength(1);
  });

  /** The stored counter of the identity's only passkey. */
  const storedCounter = async (id: string) => {
    const row = await h.app.ctx.db
      .selectFrom('identity_credentials')
      .select('config')
      .where('identity_id', '=', id)
      .where('type', '=', 'passkey')
      .executeTakeFirstOrThrow();
    return (row.config as { credentials: { counter: number }[] }).credentials[0]!.counter;
  };
  const sessionCount = async (id: string) =>
    (await h.app.ctx.db.selectFrom('identity_sessions').select('id').where('identity_id', '=', id).execute())
      .length;

  it.each([5, 50])(
    'parallel passkey sign-ins replaying one counter: at most one succeeds (%i at once)',
    async (n) => {
      const { auth, id } = await userWithPasskey(`pk-clone-${n}@example.com`);
      const first = await passkeyAnswer(auth);
      expect((await signIn(first.b, first.flow, first.answer)).status).toBe(200);
      expect(await storedCounter(id)).toBe(1);
      const before = await sessionCount(id);
      // A cloned key: n sign-in flows, each with its own challenge, all answered with counter 2.
      const answers = await Promise.all(Array.from({ length: n }, () => passkeyAnswer(auth, { counter: 2 })));
      const results = await Promise.all(answers.map((a) => signIn(a.b, a.flow, a.answer)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const refused = results.filter((r) => r.status === 400);
      expect(refused).toHaveLength(n - 1);
      for (const r of refused) expect(r.body.ui.messages[0].text).toMatch(/could not be verified/);
      expect(await sessionCount(id)).toBe(before + 1);
      expect(await storedCounter(id)).toBe(2);
      // The key itself counts on: its next answer signs in.
      const next = await passkeyAnswer(auth, { counter: 3 });
      expect((await signIn(next.b, next.flow, next.answer)).status).toBe(200);
    },
  );

  it('an authenticator that does not count (counter always 0) signs in, in parallel too', async () => {
    const { auth, id } = await userWithPasskey('pk-no-counter@example.com');
    const before = await sessionCount(id);
    const answers = await Promise.all(Array.from({ length: 5 }, () => passkeyAnswer(auth, { counter: 0 })));
    const results = await Promise.all(answers.map((a) => signIn(a.b, a.flow, a.answer)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await sessionCount(id)).toBe(before + 5);
    expect(await storedCounter(id)).toBe(0);
    // Once a key has counted, a 0 is a step back and is refused.
    const counted = await passkeyAnswer(auth, { counter: 7 });
    expect((await signIn(counted.b, counted.flow, counted.answer)).status).toBe(200);
    const zero = await passkeyAnswer(auth, { counter: 0 });
    expect((await signIn(zero.b, zero.flow, zero.answer)).status).toBe(400);
  });

  it('serves /.well-known/ory/webauthn.js as Kratos does', async () => {
    const res = await new Browser(h.publicUrl).get('/.well-known/ory/webauthn.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.text).toContain('window.oryPasskeyLogin');
    expect(res.text).toContain('window.__oryWebAuthnLogin');
  });
});

describe('security keys as the second factor (webauthn)', () => {
  it('registers a security key, then the second factor is answered with it (aal2)', async () => {
    const email = 'sk-2fa@example.com';
    await createUser(h, email);
    const b = new Browser(h.publicUrl);
    await login(b, email);
    const auth = new SoftAuthenticator();
    const flow = await startFlow<Flow>(b, 'settings');
    const options = (
      JSON.parse(valueOf(flow, 'webauthn_create_data')) as { credentialOptions: { publicKey: never } }
    ).credentialOptions.publicKey;
    const added = await submitFlow(b, 'settings', flow, {
      method: 'webauthn',
      webauthn_register: JSON.stringify(auth.create(options)),
      webauthn_register_displayname: 'YubiKey',
      csrf_token: csrfOf(flow),
    });
    expect(added.status, added.text).toBe(200);
    expect(h.mailbox.filter((m) => m.to === email && /security key was added/.test(m.subject))).toHaveLength(
      1,
    );
    // The session that added it gained the second factor at once (it still meets the new highest level).
    expect((await whoami(b)).authenticator_assurance_level).toBe('aal2');

    const next = new Browser(h.publicUrl);
    expect((await login(next, email)).status).toBe(422);
    const second = await startFlow<Flow>(next, 'login', '?aal=aal2');
    expect(openApiErrors('kratos', '/self-service/login/flows', 'get', 200, second)).toEqual([]);
    const res = await submitFlow(next, 'login', second, {
      method: 'webauthn',
      webauthn_login: JSON.stringify(auth.get(loginOptions(second, 'webauthn_challenge'))),
      csrf_token: csrfOf(second),
    });
    expect(res.status, res.text).toBe(200);
    expect((await whoami(next)).authenticator_assurance_level).toBe('aal2');

    // An administrator's 2FA reset removes security keys (Kratos's credential delete); passkeys are
    // not second factors and can not be removed that way (404, as in Kratos).
    const id = (await whoami(next)).identity.id as string;
    const del = (type: string) =>
      fetch(`${h.adminUrl}/admin/identities/${id}/credentials/${type}`, { method: 'DELETE' });
    expect((await del('passkey')).status).toBe(404);
    expect((await del('webauthn')).status).toBe(204);
    expect((await login(new Browser(h.publicUrl), email)).status).toBe(200);
  });
});

describe('relying party configuration', () => {
  it.each([
    ['development: every app on localhost', {}, 'localhost'],
    [
      'the parent domain the applications share',
      { IDENTITY_CORS_ORIGINS: 'https://platform.example.com,https://ai.example.com' },
      'example.com',
    ],
    [
      'set explicitly',
      { IDENTITY_CORS_ORIGINS: 'https://a.research.example.com', IDENTITY_WEBAUTHN_RP_ID: 'example.com' },
      'example.com',
    ],
  ])('%s', (_name, env, rpId) => {
    expect(loadConfig(env).webauthn.rpId).toBe(rpId);
  });

  it('refuses to start with an RP id that is not a parent domain of every origin', () => {
    expect(() =>
      loadConfig({ IDENTITY_CORS_ORIGINS: 'https://a.example.com', IDENTITY_WEBAUTHN_RP_ID: 'evil.example' }),
    ).toThrow(/IDENTITY_WEBAUTHN_RP_ID/);
    expect(() =>
      loadConfig({ IDENTITY_CORS_ORIGINS: 'https://a.example.com,https://b.example.org' }),
    ).toThrow(/IDENTITY_WEBAUTHN_RP_ID/);
    // Without WebAuthn methods there is nothing to refuse.
    expect(
      loadConfig({
        IDENTITY_CORS_ORIGINS: 'https://a.example.com,https://b.example.org',
        IDENTITY_METHODS: 'password',
      }).webauthn.rpId,
    ).toBe('');
  });
});
