import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, createUser, startHarness, traits, type Harness } from '../harness.ts';

let h: Harness;
let admin: Browser;
beforeAll(async () => {
  h = await startHarness();
  admin = new Browser(h.adminUrl);
});
afterAll(() => h.close());

describe('PATCH /admin/identities/{id} against prototype pollution', () => {
  it('prototype pollution through the admin JSON Patch is refused with a 400 envelope', async () => {
    const id = await createUser(h, 'proto@example.com');
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    for (const path of [
      '/traits/__proto__/x',
      '/__proto__/x',
      '/traits/constructor/prototype/x',
      '/metadata_admin/prototype',
      '/traits/name/__proto__',
    ]) {
      const res = await admin.request('PATCH', `/admin/identities/${id}`, {
        json: [{ op: 'add', path, value: 'polluted' }],
        accept: 'json',
      });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, status: 'Bad Request' });
      expect(res.body.error.reason).toMatch(/reserved segment/);
    }
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).x).toBeUndefined();

    // Strict schemas elsewhere in the process still accept ordinary bodies.
    const created = await admin.post('/admin/identities', {
      json: { schema_id: 'default', traits: traits('after@example.com') },
      accept: 'json',
    });
    expect(created.status, created.text).toBe(201);
    const unchanged = await admin.get(`/admin/identities/${id}`);
    expect(unchanged.body.traits.name).toEqual({ first: 'Ada', last: 'Lovelace' });
  });

  it('a value carrying a __proto__ or constructor key is refused with a 400 envelope, and nothing is stored', async () => {
    const id = await createUser(h, 'protovalue@example.com');
    for (const body of [
      '[{"op":"add","path":"/metadata_admin","value":{"__proto__":{"polluted":true}}}]',
      '[{"op":"add","path":"/metadata_public","value":{"a":{"constructor":{"prototype":{"polluted":true}}}}}]',
      '[{"op":"add","path":"/metadata_admin","value":{"__proto__.polluted":true}}]',
    ]) {
      const res = await admin.request('PATCH', `/admin/identities/${id}`, {
        body,
        headers: { 'content-type': 'application/json' },
        accept: 'json',
      });
      expect(res.status, body).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, status: 'Bad Request' });
      expect(res.body.error.reason).toMatch(/reserved key/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const stored = await admin.get(`/admin/identities/${id}`);
    expect(stored.body.metadata_admin ?? null).toBeNull();
    expect(stored.body.metadata_public ?? null).toBeNull();
  });
});
