import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, createUser, login, startHarness, type Harness } from '../harness.ts';

let h: Harness;
let admin: Browser;
beforeAll(async () => {
  h = await startHarness();
  admin = new Browser(h.adminUrl);
});
afterAll(() => h.close());

const whoami = (b: Browser) => b.get('/sessions/whoami', { accept: 'json' });

describe('deactivating or deleting an identity', () => {
  it('a deactivated identity keeps no live session and no usable recovery code', async () => {
    const id = await createUser(h, 'deactivate@example.com');
    const b = new Browser(h.publicUrl);
    expect((await login(b, 'deactivate@example.com')).status).toBe(200);
    expect((await whoami(b)).status).toBe(200);
    const code = await admin.post('/admin/recovery/code', { json: { identity_id: id }, accept: 'json' });
    expect(code.status).toBe(201);
    const res = await admin.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'replace', path: '/state', value: 'inactive' }],
      accept: 'json',
    });
    expect(res.status, res.text).toBe(200);
    expect((await whoami(b)).status).toBe(401);
    // Re-activating does not bring the old recovery code back.
    await admin.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'replace', path: '/state', value: 'active' }],
    });
    const flow = new URL(code.body.recovery_link).searchParams.get('flow')!;
    const r = new Browser(h.publicUrl);
    const submitted = await r.post(`/self-service/recovery?flow=${flow}`, {
      json: { method: 'code', code: code.body.recovery_code },
      accept: 'json',
    });
    expect(submitted.status).not.toBe(422);
    expect((await whoami(r)).status).toBe(401);
  });

  it('DELETE /admin/identities/{id}/recovery-flows ends earlier invitation codes', async () => {
    const id = await createUser(h, 'endflows@example.com');
    const code = await admin.post('/admin/recovery/code', { json: { identity_id: id }, accept: 'json' });
    expect((await admin.request('DELETE', `/admin/identities/${id}/recovery-flows`)).status).toBe(204);
    const flow = new URL(code.body.recovery_link).searchParams.get('flow')!;
    const r = new Browser(h.publicUrl);
    const submitted = await r.post(`/self-service/recovery?flow=${flow}`, {
      json: { method: 'code', code: code.body.recovery_code },
      accept: 'json',
    });
    expect(submitted.status).toBe(410);
    expect((await whoami(r)).status).toBe(401);
    expect(
      (await admin.request('DELETE', '/admin/identities/00000000-0000-4000-8000-000000000000/recovery-flows'))
        .status,
    ).toBe(404);
  });

  it('a deleted identity keeps no live session', async () => {
    const id = await createUser(h, 'deleted@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'deleted@example.com');
    expect((await admin.request('DELETE', `/admin/identities/${id}`)).status).toBe(204);
    expect((await whoami(b)).status).toBe(401);
  });
});
