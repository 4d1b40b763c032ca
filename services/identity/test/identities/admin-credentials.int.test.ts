import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startHarness, type Harness } from '../harness.ts';

// Kratos' `DELETE /admin/identities/{id}/credentials/{type}`, second factors only: the user service's
// organisation console resets a member's 2FA through it (issue 24).

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const del = (id: string, type: string) =>
  fetch(`${h.adminUrl}/admin/identities/${id}/credentials/${type}`, { method: 'DELETE' });

async function types(id: string): Promise<string[]> {
  const res = await fetch(`${h.adminUrl}/admin/identities/${id}`);
  return Object.keys(((await res.json()) as { credentials?: object }).credentials ?? {}).sort();
}

describe('DELETE /admin/identities/:id/credentials/:type', () => {
  it('removes a TOTP credential (204), then answers 404 when there is none', async () => {
    const id = await createUser(h, 'totp-reset@example.com');
    const now = new Date();
    await h.db.kysely
      .insertInto('identity_credentials' as never)
      .values({
        id: crypto.randomUUID(),
        identity_id: id,
        type: 'totp',
        config: JSON.stringify({ totp_url: 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP' }),
        version: 0,
        created_at: now,
        updated_at: now,
      } as never)
      .execute();
    expect(await types(id)).toEqual(['password', 'totp']);
    expect((await del(id, 'totp')).status).toBe(204);
    expect(await types(id)).toEqual(['password']);
    expect((await del(id, 'totp')).status).toBe(404);
  });

  it('never removes a first factor, and refuses unknown identities, with the Kratos envelope', async () => {
    const id = await createUser(h, 'keep-password@example.com');
    const res = await del(id, 'password');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(404);
    expect(await types(id)).toEqual(['password']);
    expect((await del('not-a-uuid', 'totp')).status).toBe(404);
    expect((await del(crypto.randomUUID(), 'lookup_secret')).status).toBe(404);
  });
});
