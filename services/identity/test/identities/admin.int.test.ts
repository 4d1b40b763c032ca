import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { hash as argonHash } from '@node-rs/argon2';
import type { Identity, Session } from '@ory/client';
import { Browser, DEMO_PASSWORD, createUser, login, startHarness, traits, type Harness } from '../harness.ts';

let h: Harness;
let admin: Browser;
beforeAll(async () => {
  h = await startHarness();
  admin = new Browser(h.adminUrl);
});
afterAll(() => h.close());

const create = (body: unknown) => admin.post('/admin/identities', { json: body, accept: 'json' });
/** The address marked proven, as an operator vouches for it: a password sign-in needs that. */
const proven = (email: string) => ({
  verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
});

function assertIdentity(i: Identity) {
  for (const k of ['id', 'schema_id', 'schema_url', 'traits'] as const) expect(i[k]).toBeDefined();
  expect(i.schema_id).toBe('default');
  expect(i.schema_url).toBe('http://localhost:4433/schemas/ZGVmYXVsdA');
}

describe('admin identities', () => {
  it('POST creates an identity (201) with a plain password and a verified address', async () => {
    const res = await create({
      schema_id: 'default',
      traits: traits('grace@example.com'),
      metadata_public: { plan: 'pro' },
      credentials: { password: { config: { password: DEMO_PASSWORD } } },
      verifiable_addresses: [{ value: 'grace@example.com', verified: true, via: 'email' }],
    });
    expect(res.status, res.text).toBe(201);
    const i = res.body as Identity;
    assertIdentity(i);
    expect(i.state).toBe('active');
    expect(i.metadata_public).toEqual({ plan: 'pro' });
    expect(i.verifiable_addresses).toEqual([
      expect.objectContaining({
        value: 'grace@example.com',
        verified: true,
        via: 'email',
        status: 'completed',
      }),
    ]);
    expect(i.recovery_addresses).toEqual([
      expect.objectContaining({ value: 'grace@example.com', via: 'email' }),
    ]);
    expect(i.credentials?.password).toMatchObject({ type: 'password', identifiers: ['grace@example.com'] });
    expect(JSON.stringify(i)).not.toContain('hashed_password');
    expect(JSON.stringify(i)).not.toContain('$argon2');
    const stored = await h.db.kysely
      .selectFrom('identity_credentials')
      .select('config')
      .where('identity_id', '=', i.id)
      .executeTakeFirstOrThrow();
    expect(stored.config.hashed_password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await login(new Browser(h.publicUrl), 'grace@example.com')).status).toBe(200);
  });

  it('addresses start unverified unless marked verified', async () => {
    const res = await create({ schema_id: 'default', traits: traits('unverified@example.com') });
    expect(res.status).toBe(201);
    expect(res.body.verifiable_addresses[0]).toMatchObject({ verified: false, status: 'pending' });
    expect(res.body.credentials).toEqual({});
  });

  it('GET /admin/identities?credentials_identifier= finds by identifier (case-insensitively)', async () => {
    await createUser(h, 'lookup@example.com');
    const res = await admin.get('/admin/identities?credentials_identifier=LOOKUP@example.com');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0].traits.email).toBe('lookup@example.com');
    const none = await admin.get('/admin/identities?credentials_identifier=none@example.com');
    expect(none.body).toEqual([]);
    const all = await admin.get('/admin/identities');
    expect(all.body.length).toBeGreaterThanOrEqual(3);
  });

  it('imports bcrypt and argon2 hashes; they verify and are upgraded at the next login', async () => {
    const bc = await bcrypt.hash(DEMO_PASSWORD, 4);
    const ar = await argonHash(DEMO_PASSWORD, { memoryCost: 4096, timeCost: 1, parallelism: 1 });
    for (const [email, hashed] of [
      ['bcrypt@example.com', bc],
      ['argon@example.com', ar],
    ] as const) {
      const res = await create({
        schema_id: 'default',
        traits: traits(email),
        credentials: { password: { config: { hashed_password: hashed } } },
        ...proven(email),
      });
      expect(res.status, res.text).toBe(201);
      const wrong = await login(new Browser(h.publicUrl), email, 'not the password');
      expect(wrong.status).toBe(400);
      const ok = await login(new Browser(h.publicUrl), email);
      expect(ok.status).toBe(200);
      const stored = await h.db.kysely
        .selectFrom('identity_credentials')
        .select('config')
        .where('identity_id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(stored.config.hashed_password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect((await login(new Browser(h.publicUrl), email)).status).toBe(200);
    }
    const bad = await create({
      schema_id: 'default',
      traits: traits('badhash@example.com'),
      credentials: { password: { config: { hashed_password: '$md5$nope' } } },
    });
    expect(bad.status).toBe(400);
  });

  it('enforces the password policy on plain passwords (min 8, common list, 64+ accepted, > 4 KB refused)', async () => {
    const mk = (email: string, password: string) =>
      create({
        schema_id: 'default',
        traits: traits(email),
        credentials: { password: { config: { password } } },
        ...proven(email),
      });
    const short = await mk('short@example.com', 'abc12');
    expect(short.status).toBe(400);
    expect(short.body.error.details.ui_message).toMatchObject({ id: 4000032 });
    const common = await mk('common@example.com', 'password123');
    expect(common.status).toBe(400);
    expect(common.body.error.details.ui_message).toMatchObject({
      id: 4000034,
      text: 'The password has been found in data breaches and must no longer be used.',
    });
    const long = 'Long-pass phrase 1, not truncated! '.repeat(3); // 105 characters
    const ok = await mk('long@example.com', long);
    expect(ok.status).toBe(201);
    expect((await login(new Browser(h.publicUrl), 'long@example.com', long)).status).toBe(200);
    // A prefix of the 99-character password is not enough (no truncation).
    expect((await login(new Browser(h.publicUrl), 'long@example.com', long.slice(0, 72))).status).toBe(400);
    const huge = await mk('huge@example.com', 'x'.repeat(4097));
    expect(huge.status).toBe(400);
    expect(huge.body.error.details.ui_message).toMatchObject({ id: 4000005 });
  });

  it.each([
    [
      'no digit',
      'a long passphrase, no number',
      'The password can not be used because it does not contain a number.',
    ],
    [
      'no special character',
      'Abcdefgh2026',
      'The password can not be used because it does not contain a special character.',
    ],
  ])(
    'abuse: a password the app would refuse (%s) cannot be set through the admin API, on create or patch',
    async (kase, password, text) => {
      const email = `rule-${kase.replace(/ /g, '-')}@example.com`;
      const created = await create({
        schema_id: 'default',
        traits: traits(email),
        credentials: { password: { config: { password } } },
      });
      expect(created.status).toBe(400);
      expect(created.body.error.details.ui_message).toMatchObject({ id: 4000005, text });
      const ok = await create({
        schema_id: 'default',
        traits: traits(email),
        credentials: { password: { config: { password: DEMO_PASSWORD } } },
        ...proven(email),
      });
      expect(ok.status).toBe(201);
      const patched = await admin.request('PATCH', `/admin/identities/${ok.body.id}`, {
        json: [{ op: 'add', path: '/credentials/password/config/password', value: password }],
      });
      expect(patched.status).toBe(400);
      expect(patched.body.error.details.ui_message).toMatchObject({ id: 4000005 });
      expect((await login(new Browser(h.publicUrl), email, password)).status).toBe(400);
      expect((await login(new Browser(h.publicUrl), email, DEMO_PASSWORD)).status).toBe(200);
    },
  );

  it('validates traits and bodies with the Kratos envelope', async () => {
    const cases: [unknown, number][] = [
      [{ schema_id: 'default', traits: { email: 'not-an-email' } }, 400],
      [{ schema_id: 'default', traits: { ...traits('x@example.com'), unknownTrait: 1 } }, 400],
      [{ schema_id: 'other', traits: traits('y@example.com') }, 400],
      [{ schema_id: 'default' }, 400],
      [[1, 2], 400],
    ];
    for (const [body, status] of cases) {
      const res = await create(body);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code: status, status: 'Bad Request' });
    }
    const malformed = await admin.post('/admin/identities', {
      body: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe(400);
    const ct = await admin.post('/admin/identities', {
      body: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(ct.status).toBe(415);
    expect(ct.body.error.code).toBe(415);
  });

  it('answers 409 for a duplicate identifier', async () => {
    await createUser(h, 'dup@example.com');
    const res = await create({ schema_id: 'default', traits: traits('DUP@example.com') });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 409, status: 'Conflict' });
  });

  it('GET, PUT, PATCH and DELETE one identity; unknown ids are 404', async () => {
    const id = await createUser(h, 'edit@example.com');
    const got = await admin.get(`/admin/identities/${id}`);
    expect(got.status).toBe(200);
    assertIdentity(got.body);
    expect(got.body.metadata_admin).toBeNull();

    const patched = await admin.request('PATCH', `/admin/identities/${id}`, {
      json: [
        { op: 'replace', path: '/traits/name/first', value: 'Edith' },
        { op: 'replace', path: '/traits/onboarding/tosAccepted', value: false },
        { op: 'add', path: '/metadata_public', value: { a: 1 } },
      ],
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.traits.name.first).toBe('Edith');
    expect(patched.body.traits.onboarding.tosAccepted).toBe(false);
    expect(patched.body.metadata_public).toEqual({ a: 1 });

    const badPatch = await admin.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'replace', path: '/id', value: 'x' }],
    });
    expect(badPatch.status).toBe(400);
    const badTraits = await admin.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'replace', path: '/traits/email', value: 5 }],
    });
    expect(badTraits.status).toBe(400);

    const pw = await admin.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'add', path: '/credentials/password/config/password', value: 'a brand new passphrase 3' }],
    });
    expect(pw.status, pw.text).toBe(200);
    expect(
      (await login(new Browser(h.publicUrl), 'edit@example.com', 'a brand new passphrase 3')).status,
    ).toBe(200);

    const put = await admin.request('PUT', `/admin/identities/${id}`, {
      json: { schema_id: 'default', state: 'inactive', traits: traits('edited@example.com') },
    });
    expect(put.status).toBe(200);
    expect(put.body.state).toBe('inactive');
    expect(put.body.verifiable_addresses[0]).toMatchObject({ value: 'edited@example.com', verified: false });
    expect(put.body.credentials.password.identifiers).toEqual(['edited@example.com']);
    // Inactive identities cannot sign in (same answer as a wrong password).
    expect(
      (await login(new Browser(h.publicUrl), 'edited@example.com', 'a brand new passphrase 3')).status,
    ).toBe(400);

    expect((await admin.request('DELETE', `/admin/identities/${id}`)).status).toBe(204);
    expect((await admin.get(`/admin/identities/${id}`)).status).toBe(404);
    expect((await admin.request('DELETE', `/admin/identities/${id}`)).status).toBe(404);
    expect((await admin.get('/admin/identities/not-a-uuid')).status).toBe(404);
  });

  it('sessions: GET /admin/sessions/{id}?expand=identity, and DELETE /admin/identities/{id}/sessions revokes at once', async () => {
    const id = await createUser(h, 'sess@example.com');
    const b = new Browser(h.publicUrl);
    const res = await login(b, 'sess@example.com');
    const sid = (res.body.session as Session).id;
    const plain = await admin.get(`/admin/sessions/${sid}`);
    expect(plain.status).toBe(200);
    expect(plain.body.id).toBe(sid);
    expect(plain.body.identity).toBeUndefined();
    const expanded = await admin.get(`/admin/sessions/${sid}?expand=identity`);
    expect(expanded.body.identity.id).toBe(id);
    expect((await admin.get('/admin/sessions/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    expect((await admin.request('DELETE', `/admin/identities/${id}/sessions`)).status).toBe(204);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    expect((await admin.get(`/admin/sessions/${sid}`)).status).toBe(404);
    expect(
      (await admin.request('DELETE', '/admin/identities/00000000-0000-4000-8000-000000000000/sessions'))
        .status,
    ).toBe(404);
  });
});

describe('schemas and health', () => {
  it('serves the identity schema on both APIs', async () => {
    for (const base of [h.publicUrl, h.adminUrl]) {
      const b = new Browser(base);
      const list = await b.get('/schemas');
      expect(list.body).toEqual([{ id: 'default', schema: expect.objectContaining({ type: 'object' }) }]);
      const one = await b.get('/schemas/default');
      expect(
        one.body.properties.traits.properties.email['ory.sh/kratos'].credentials.password.identifier,
      ).toBe(true);
      expect((await b.get('/schemas/ZGVmYXVsdA')).status).toBe(200);
      expect((await b.get('/schemas/nope')).status).toBe(404);
      expect((await b.get('/health/alive')).body).toEqual({ status: 'ok' });
      expect((await b.get('/health/ready')).body).toEqual({ status: 'ok' });
      const nf = await b.get('/no/such/route');
      expect(nf.status).toBe(404);
      expect(nf.body.error.code).toBe(404);
    }
  });
});
