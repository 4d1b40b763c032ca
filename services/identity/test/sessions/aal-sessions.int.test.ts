import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typed } from '@acme/db';
import type { IdentityDb } from '../../src/db/schema.ts';
import { upsertCredential } from '../../src/identities/repo.ts';
import { Browser, createUser, login, startHarness, type Harness } from '../harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('session management at aal1 for an identity with a second factor', () => {
  it('an aal1 session of a user with a second factor cannot list or revoke sessions', async () => {
    const id = await createUser(h, 'aal@example.com');
    const other = new Browser(h.publicUrl);
    const first = await login(other, 'aal@example.com');
    expect(first.status).toBe(200);
    const otherId = first.body.session.id as string;
    // The second factor is added after that session was made.
    await upsertCredential(
      typed<IdentityDb>(h.db),
      id,
      'totp',
      { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' },
      [],
      h.clock.now(),
    );
    const attacker = new Browser(h.publicUrl);
    await login(attacker, 'aal@example.com'); // password only: aal1
    for (const res of [
      await attacker.get('/sessions', { accept: 'json' }),
      await attacker.request('DELETE', '/sessions', { accept: 'json' }),
      await attacker.request('DELETE', `/sessions/${otherId}`, { accept: 'json' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.id).toBe('session_aal2_required');
    }
    // Nothing was revoked.
    const row = await typed<IdentityDb>(h.db)
      .selectFrom('identity_sessions')
      .select('active')
      .where('id', '=', otherId)
      .executeTakeFirstOrThrow();
    expect(row.active).toBe(true);
  });

  it('without a second factor, aal1 may list and revoke its other sessions', async () => {
    await createUser(h, 'plain@example.com');
    const a = new Browser(h.publicUrl);
    const b = new Browser(h.publicUrl);
    const first = await login(a, 'plain@example.com');
    await login(b, 'plain@example.com');
    const list = await b.get('/sessions', { accept: 'json' });
    expect(list.status).toBe(200);
    expect(list.body.map((s: { id: string }) => s.id)).toContain(first.body.session.id);
    expect((await b.request('DELETE', `/sessions/${first.body.session.id}`, { accept: 'json' })).status).toBe(
      204,
    );
  });
});
