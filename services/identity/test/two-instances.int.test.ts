import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  csrfOf,
  startHarness,
  submitFlow,
  type Harness,
} from './harness.ts';

/** Two instances on one database behave as one: flows and sessions live only in PostgreSQL. */
describe('two instances on one database', () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await startHarness();
    b = await startHarness({}, { db: a.db, clock: a.clock });
    await createUser(a, 'both@example.com');
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  /** A new person signs in with a password on B; answers B's browser and the login's answer. */
  async function signInOnB(email: string) {
    await createUser(a, email);
    const onB = new Browser(b.publicUrl);
    const init = await onB.get('/self-service/login/browser', { accept: 'json' });
    const res = await submitFlow(onB, 'login', init.body, {
      method: 'password',
      identifier: email,
      password: DEMO_PASSWORD,
      csrf_token: csrfOf(init.body),
    });
    expect(res.status, res.text).toBe(200);
    return { onB, res };
  }

  it('a flow created on one is submitted on the other, and the session is served by both', async () => {
    const onA = new Browser(a.publicUrl);
    const init = await onA.get('/self-service/login/browser', { accept: 'json' });
    const onB = new Browser(b.publicUrl);
    for (const [k, v] of onA.cookies) onB.cookies.set(k, v);
    const flow = await onB.get(`/self-service/login/flows?id=${init.body.id}`, { accept: 'json' });
    expect(flow.status).toBe(200);
    const res = await submitFlow(onB, 'login', init.body, {
      method: 'password',
      identifier: 'both@example.com',
      password: DEMO_PASSWORD,
      csrf_token: csrfOf(init.body),
    });
    expect(res.status, res.text).toBe(200);
    onA.cookies.set('ory_kratos_session', onB.cookies.get('ory_kratos_session')!);
    const whoA = await onA.get('/sessions/whoami', { accept: 'json' });
    expect(whoA.status).toBe(200);
    expect(whoA.body.id).toBe(res.body.session.id);
    const admin = await new Browser(a.adminUrl).get(`/admin/sessions/${res.body.session.id}`);
    expect(admin.status).toBe(200);
    // Logout on A is seen by B at once.
    const lf = await onA.get('/self-service/logout/browser', { accept: 'json' });
    expect(
      (await onA.get(`/self-service/logout?token=${lf.body.logout_token}`, { accept: 'json' })).status,
    ).toBe(204);
    expect((await onB.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });

  it("an operator's DELETE /admin/sessions/{id} on one instance ends the session another instance has cached", async () => {
    const { onB, res } = await signInOnB('cached@example.com');
    // B answers from its cache from now on.
    expect((await onB.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
    const hits = b.app.ctx.sessionCache.stats.hits;
    expect((await onB.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
    expect(b.app.ctx.sessionCache.stats.hits).toBe(hits + 1);

    const ended = await new Browser(a.adminUrl).request('DELETE', `/admin/sessions/${res.body.session.id}`);
    expect(ended.status).toBe(204);
    await expect
      .poll(async () => (await onB.get('/sessions/whoami', { accept: 'json' })).status, { timeout: 5000 })
      .toBe(401);
  });

  it('a whoami that asks for no-cache sees a change whose notice has not arrived yet, and replaces the cached answer', async () => {
    const { onB, res } = await signInOnB('fresh@example.com');
    const identityId: string = res.body.session.identity.id;
    expect((await onB.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);

    // Another service changed the identity and the change is committed, but its notice is still on its
    // way (a busy instance under load): the trigger that announces it is held back for this write.
    await a.db.kysely.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await trx
        .updateTable('identity_identities')
        .set({ metadata_public: JSON.stringify({ onboarding: { tosAccepted: true } }) })
        .where('id', '=', identityId)
        .execute();
    });
    const cached = await onB.get('/sessions/whoami', { accept: 'json' });
    expect(cached.body.identity.metadata_public).toBeNull();

    const hits = b.app.ctx.sessionCache.stats.hits;
    const fresh = await onB.get('/sessions/whoami', {
      accept: 'json',
      headers: { 'cache-control': 'no-cache' },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.identity.metadata_public).toEqual({ onboarding: { tosAccepted: true } });
    expect(b.app.ctx.sessionCache.stats.hits).toBe(hits);
    // What the fresh read found is what the cache answers from now on.
    const after = await onB.get('/sessions/whoami', { accept: 'json' });
    expect(after.body.identity.metadata_public).toEqual({ onboarding: { tosAccepted: true } });
    expect(b.app.ctx.sessionCache.stats.hits).toBe(hits + 1);
  });
});
