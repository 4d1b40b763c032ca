import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { hash as argonHash } from '@node-rs/argon2';
import { openApiErrors } from '@acme/test-kit/openapi';
import { Browser, createUser, login, startHarness, traits, type Harness, type Res } from '../harness.ts';

/**
 * Kratos `PATCH /admin/identities`: batch import with per-item results, hashes from other systems,
 * upgraded to our argon2id at the person's next sign-in.
 */

let h: Harness;
let admin: Browser;
beforeAll(async () => {
  h = await startHarness();
  admin = new Browser(h.adminUrl);
});
afterAll(() => h.close());

const OLD_PASSWORD = 'their old password from elsewhere 7';

/** One hash per format Kratos imports, each of OLD_PASSWORD. */
const hashes = {
  argon2id: () => argonHash(OLD_PASSWORD, { algorithm: 2, memoryCost: 4096, timeCost: 1, parallelism: 1 }),
  bcrypt: async () => bcrypt.hashSync(OLD_PASSWORD, 4),
  pbkdf2: async () => {
    const salt = randomBytes(16);
    const key = pbkdf2Sync(OLD_PASSWORD, salt, 1000, 32, 'sha256');
    return `$pbkdf2-sha256$i=1000,l=32$${salt.toString('base64')}$${key.toString('base64')}`;
  },
  scrypt: async () => {
    const salt = randomBytes(16);
    const key = scryptSync(OLD_PASSWORD, salt, 32, { N: 1024, r: 8, p: 1 });
    return `$scrypt$ln=1024,r=8,p=1$${salt.toString('base64')}$${key.toString('base64')}`;
  },
};

function person(email: string, hashed?: string) {
  return {
    schema_id: 'default',
    traits: traits(email),
    verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
    ...(hashed ? { credentials: { password: { config: { hashed_password: hashed } } } } : {}),
  };
}

const importBatch = (items: unknown[]) =>
  admin.request('PATCH', '/admin/identities', { json: { identities: items }, accept: 'json' });

function kratos(res: Res) {
  expect(openApiErrors('kratos', '/admin/identities', 'patch', res.status, res.body)).toEqual([]);
}

async function storedHash(email: string): Promise<string | undefined> {
  const row = await h.db.kysely
    .selectFrom('identity_credential_identifiers as ci')
    .innerJoin('identity_credentials as c', 'c.identity_id', 'ci.identity_id')
    .select('c.config')
    .where('ci.identifier', '=', email)
    .where('c.type', '=', 'password')
    .executeTakeFirst();
  return (row?.config as { hashed_password?: string } | undefined)?.hashed_password;
}

const identityCount = async (email: string) =>
  (
    await h.db.kysely
      .selectFrom('identity_verifiable_addresses')
      .select('identity_id')
      .where('value', '=', email)
      .execute()
  ).length;

const OUR_ARGON2ID = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/;

describe('PATCH /admin/identities', () => {
  it("creates each item and answers Kratos's per-item results, in order, with patch_id", async () => {
    const patchId = '3f2a9d3c-8b43-4f5e-9c55-0d1c2e3f4a5b';
    const res = await importBatch([
      { create: person('imp-1@example.com', await hashes.bcrypt()), patch_id: patchId },
      { create: person('imp-2@example.com') },
    ]);
    expect(res.status, res.text).toBe(200);
    kratos(res);
    expect(res.body.identities).toEqual([
      { action: 'create', identity: expect.any(String), patch_id: patchId },
      { action: 'create', identity: expect.any(String) },
    ]);
    const got = await admin.get(`/admin/identities/${res.body.identities[0].identity}`);
    expect(got.body.traits.email).toBe('imp-1@example.com');
    expect(got.body.verifiable_addresses[0].verified).toBe(true);
  });

  it.each(Object.keys(hashes) as (keyof typeof hashes)[])(
    'an imported %s hash signs the person in with their old password and is upgraded to our argon2id there',
    async (format) => {
      const email = `upgrade-${format}@example.com`;
      const hashed = await hashes[format]();
      const res = await importBatch([{ create: person(email, hashed) }]);
      expect(res.body.identities[0].action, res.text).toBe('create');
      expect(await storedHash(email)).toBe(hashed);

      const wrong = await login(new Browser(h.publicUrl), email, 'not their password at all 1');
      expect(wrong.status).toBe(400);
      expect(await storedHash(email)).toBe(hashed);

      const first = await login(new Browser(h.publicUrl), email, OLD_PASSWORD);
      expect(first.status, first.text).toBe(200);
      const upgraded = await storedHash(email);
      expect(upgraded).toMatch(OUR_ARGON2ID);
      const again = await login(new Browser(h.publicUrl), email, OLD_PASSWORD);
      expect(again.status).toBe(200);
      expect(await storedHash(email)).toBe(upgraded);
    },
  );

  it('abuse: a malformed hash, a duplicate address in the batch and an address taken already are per-item errors; nothing of them is written', async () => {
    const good = await hashes.bcrypt();
    await importBatch([{ create: person('taken@example.com', good) }]);
    const res = await importBatch([
      { create: person('bad-hash@example.com', '$pbkdf2-sha256$i=1000,l=32$c2FsdA$short') },
      {
        create: person(
          'bad-hash2@example.com',
          '$scrypt$ln=1000,r=8,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA==',
        ),
      },
      { create: person('huge-cost@example.com', '$pbkdf2-sha256$i=99999999,l=32$c2FsdA$' + 'A'.repeat(43)) },
      { create: person('twice@example.com', good) },
      { create: person('TWICE@example.com', good) },
      { create: person('taken@example.com', good) },
      { create: { schema_id: 'default', traits: traits('no-name@example.com', { email: 'no-name' }) } },
      { patch_id: 'not-a-uuid', create: person('bad-patch-id@example.com', good) },
      { delete: { id: 'x' } },
      'a string',
    ]);
    expect(res.status, res.text).toBe(200);
    kratos(res);
    const actions = (res.body.identities as { action: string; error?: { code: number } }[]).map((r) =>
      r.action === 'create' ? 'create' : r.error!.code,
    );
    expect(actions).toEqual([400, 400, 400, 'create', 409, 409, 400, 400, 400, 400]);
    for (const email of [
      'bad-hash@example.com',
      'bad-hash2@example.com',
      'huge-cost@example.com',
      'no-name@example.com',
      'bad-patch-id@example.com',
    ])
      expect(await identityCount(email), email).toBe(0);
    expect(await identityCount('twice@example.com')).toBe(1);
    expect(await identityCount('taken@example.com')).toBe(1);
  });

  it('abuse: when every item fails the call is a 409 (all conflicts) or 400, with the per-item results', async () => {
    const hashed = await hashes.bcrypt();
    await importBatch([{ create: person('all-taken@example.com', hashed) }]);
    const conflicts = await importBatch([{ create: person('all-taken@example.com', hashed) }]);
    expect(conflicts.status).toBe(409);
    kratos(conflicts);
    expect(conflicts.body.identities).toEqual([
      { action: 'error', error: expect.objectContaining({ code: 409 }) },
    ]);
    const mixed = await importBatch([{ create: person('x@example.com', 'plain-text-is-no-hash') }]);
    expect(mixed.status).toBe(400);
    kratos(mixed);
  });

  it('abuse: over 1,000 items (200 with a plain password), no array, malformed JSON, prototype keys: 400 and nothing written', async () => {
    const hashed = await hashes.bcrypt();
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({
      create: person(`many-${i}@example.com`, hashed),
    }));
    const res = await importBatch(tooMany);
    expect(res.status).toBe(400);
    kratos(res);
    expect(await identityCount('many-0@example.com')).toBe(0);

    const plain = Array.from({ length: 201 }, (_, i) => ({
      create: {
        ...person(`plain-${i}@example.com`),
        credentials: { password: { config: { password: 'a fine long passphrase 9' } } },
      },
    }));
    expect((await importBatch(plain)).status).toBe(400);
    expect(await identityCount('plain-0@example.com')).toBe(0);

    for (const body of [
      '{"identities": {}}',
      '{"identities": [',
      '[]',
      '{"identities": [{"create": {"traits": {"email": "p@example.com"}, "__proto__": {"admin": true}}}]}',
      '{"identities": [{"constructor": {"prototype": {}}}]}',
    ]) {
      const r = await admin.request('PATCH', '/admin/identities', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status, body).toBe(400);
      expect(r.body.error.code).toBe(400);
    }
    expect(await identityCount('p@example.com')).toBe(0);
  });

  it('threat: an import of 200 plain passwords floods the hash pool, so most items and sign-ins meanwhile get 503', async () => {
    await createUser(h, 'signs-in-meanwhile@example.com');
    const items = Array.from({ length: 200 }, (_, i) => ({
      create: {
        ...person(`pool-${i}@example.com`),
        credentials: { password: { config: { password: 'a fine long passphrase 9' } } },
      },
    }));
    const importing = importBatch(items);
    // A sign-in while the import hashes (its request reaches the pool after the import's first hashes).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signIn = await login(new Browser(h.publicUrl), 'signs-in-meanwhile@example.com');
    const res = await importing;
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    const results = (res.body as { identities: { action: string }[] }).identities;
    expect(results).toHaveLength(200);
    expect(results.filter((r) => r.action === 'create')).toHaveLength(200);
    expect(signIn.status, JSON.stringify(signIn.body).slice(0, 300)).toBe(200);
    expect(await identityCount('pool-199@example.com')).toBe(1);
    // 200 argon2id hashes: 1.3 s on an idle machine, past 30 s once in CI with every stage hashing
    // and rendering on two cores (a budget for the work, not a timing assertion).
  }, 120_000);

  it('abuse: 50 parallel calls over the limit are all refused, and 50 parallel imports of the same people create each once', async () => {
    const hashed = await hashes.bcrypt();
    const over = Array.from({ length: 1001 }, (_, i) => ({
      create: person(`par-over-${i}@example.com`, hashed),
    }));
    const refused = await Promise.all(Array.from({ length: 50 }, () => importBatch(over)));
    expect(refused.map((r) => r.status)).toEqual(Array(50).fill(400));
    expect(await identityCount('par-over-0@example.com')).toBe(0);

    const same = ['par-a@example.com', 'par-b@example.com', 'par-c@example.com'];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        importBatch([
          ...same.map((e) => ({ create: person(e, hashed) })),
          { create: person(`par-own-${i}@example.com`, hashed) },
        ]),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const created = results
      .flatMap((r) => (r.body.identities as { action: string }[]).slice(0, 3))
      .filter((r) => r.action === 'create');
    expect(created).toHaveLength(3);
    for (const email of same) expect(await identityCount(email)).toBe(1);
  });
});
