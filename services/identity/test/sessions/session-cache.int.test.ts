import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { Browser, createUser, login, startHarness, type Harness, type Res } from '../harness.ts';

/**
 * whoami answers from each instance's session cache; a change committed through one instance (or by
 * anyone writing to the database) must reach the other instance's answers within a second.
 */
describe('session cache on two instances of one database', () => {
  let a: Harness;
  let b: Harness;
  let adminA: Browser;
  beforeAll(async () => {
    a = await startHarness();
    b = await startHarness({}, { db: a.db, clock: a.clock });
    adminA = new Browser(a.adminUrl);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const whoami = (br: Browser) => br.get('/sessions/whoami', { accept: 'json' });

  /** Signs in on A and returns a browser for B holding that session, whose whoami B now has cached. */
  async function warmOnB(email: string): Promise<{ id: string; onA: Browser; onB: Browser }> {
    const id = await createUser(a, email);
    const onA = new Browser(a.publicUrl);
    expect((await login(onA, email)).status).toBe(200);
    const onB = new Browser(b.publicUrl);
    onB.cookies.set('ory_kratos_session', onA.cookies.get('ory_kratos_session')!);
    expect((await whoami(onB)).status).toBe(200);
    const hits = b.app.ctx.sessionCache.stats.hits;
    const second = await whoami(onB);
    expect(second.status).toBe(200);
    expect(b.app.ctx.sessionCache.stats.hits).toBe(hits + 1); // served from B's cache
    // The cached answer is the same JSON document as the first, with its type.
    expect(second.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(second.body.identity.id).toBe(id);
    return { id, onA, onB };
  }

  /** Polls `probe` until `done` holds; fails unless that happens within a second. */
  async function within1s(probe: () => Promise<Res>, done: (r: Res) => boolean): Promise<Res> {
    const started = performance.now();
    for (;;) {
      const r = await probe();
      if (done(r)) {
        expect(performance.now() - started).toBeLessThan(1000);
        return r;
      }
      if (performance.now() - started > 1000) {
        expect.fail(`still ${r.status} ${r.text.slice(0, 200)} after 1 s`);
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  const is401 = (r: Res) => r.status === 401;

  it('B caches nothing until it listens, and starts listening with the service', () => {
    expect(a.app.ctx.sessionCache.enabled).toBe(true);
    expect(b.app.ctx.sessionCache.enabled).toBe(true);
  });

  it('browser logout on A: B answers 401', async () => {
    const { onA, onB } = await warmOnB('cache-logout@example.com');
    const lf = await onA.get('/self-service/logout/browser', { accept: 'json' });
    expect(lf.status).toBe(200);
    const out = await onA.get(`/self-service/logout?token=${lf.body.logout_token}`, { accept: 'json' });
    expect(out.status).toBe(204);
    await within1s(() => whoami(onB), is401);
  });

  it('API logout on A: B answers 401 for that token', async () => {
    const { onA } = await warmOnB('cache-api-logout@example.com');
    const token = onA.cookies.get('ory_kratos_session')!;
    const onB = new Browser(b.publicUrl);
    const who = () => onB.get('/sessions/whoami', { headers: { 'x-session-token': token }, accept: 'json' });
    const hits = b.app.ctx.sessionCache.stats.hits;
    expect((await who()).status).toBe(200);
    expect(b.app.ctx.sessionCache.stats.hits).toBe(hits + 1); // same token hash, same cache entry
    const api = new Browser(a.publicUrl);
    const out = await api.request('DELETE', '/self-service/logout/api', { json: { session_token: token } });
    expect(out.status).toBe(204);
    await within1s(who, is401);
  });

  it('the user revokes one of their other sessions on A: B answers 401 for it', async () => {
    const email = 'cache-revoke-own@example.com';
    const { onA: other, onB } = await warmOnB(email);
    const current = new Browser(a.publicUrl);
    expect((await login(current, email)).status).toBe(200);
    const sessionId = (await whoami(onB)).body.id as string;
    const del = await current.request('DELETE', `/sessions/${sessionId}`, { accept: 'json' });
    expect(del.status, del.text).toBe(204);
    await within1s(() => whoami(onB), is401);
    expect((await whoami(other)).status).toBe(401);
    expect((await whoami(current)).status).toBe(200);
  });

  it('an admin revokes the identity’s sessions on A: B answers 401', async () => {
    const { id, onB } = await warmOnB('cache-admin-revoke@example.com');
    expect((await adminA.request('DELETE', `/admin/identities/${id}/sessions`)).status).toBe(204);
    await within1s(() => whoami(onB), is401);
  });

  it('an admin deactivates the identity on A: B answers 401', async () => {
    const { id, onB } = await warmOnB('cache-deactivate@example.com');
    const res = await adminA.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'replace', path: '/state', value: 'inactive' }],
      accept: 'json',
    });
    expect(res.status, res.text).toBe(200);
    await within1s(() => whoami(onB), is401);
  });

  it('an admin deletes the identity on A: B answers 401', async () => {
    const { id, onB } = await warmOnB('cache-delete@example.com');
    expect((await adminA.request('DELETE', `/admin/identities/${id}`)).status).toBe(204);
    await within1s(() => whoami(onB), is401);
  });

  it('an admin changes traits on A: B answers with the new traits', async () => {
    const { id, onB } = await warmOnB('cache-traits@example.com');
    expect((await whoami(onB)).body.identity.traits.name.first).toBe('Ada');
    const res = await adminA.request('PATCH', `/admin/identities/${id}`, {
      json: [{ op: 'replace', path: '/traits/name/first', value: 'Grace' }],
      accept: 'json',
    });
    expect(res.status, res.text).toBe(200);
    const r = await within1s(
      () => whoami(onB),
      (x) => x.status === 200 && x.body.identity.traits.name.first === 'Grace',
    );
    expect(r.body.identity.traits.name.first).toBe('Grace');
  });

  it('a second factor added by any writer makes B ask for aal2', async () => {
    const { id, onB } = await warmOnB('cache-totp@example.com');
    const now = a.clock.now();
    // Written straight to the database: the notice comes from the table, not from a code path.
    await sql`insert into identity_credentials (id, identity_id, type, config, created_at, updated_at)
      values (${randomUUID()}, ${id}, 'totp', ${JSON.stringify({ totp_url: 'otpauth://totp/x' })}, ${now}, ${now})`.execute(
      a.db.kysely,
    );
    const r = await within1s(
      () => whoami(onB),
      (x) => x.status === 403,
    );
    expect(r.body.error.id).toBe('session_aal2_required');
  });

  it('a session whose expiry is moved earlier by any writer: B answers 401', async () => {
    const { onB } = await warmOnB('cache-expiry@example.com');
    const sessionId = (await whoami(onB)).body.id as string;
    await sql`update identity_sessions set expires_at = ${new Date(a.clock.now().getTime() - 1000)}
      where id = ${sessionId}`.execute(a.db.kysely);
    await within1s(() => whoami(onB), is401);
  });

  it('a rolled-back change evicts nothing', async () => {
    const { id, onB } = await warmOnB('cache-rollback@example.com');
    const evictions = b.app.ctx.sessionCache.stats.evictions;
    await expect(
      a.db.kysely.transaction().execute(async (trx) => {
        await sql`update identity_identities set state = 'inactive' where id = ${id}`.execute(trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await new Promise((res) => setTimeout(res, 200));
    expect(b.app.ctx.sessionCache.stats.evictions).toBe(evictions);
    const hits = b.app.ctx.sessionCache.stats.hits;
    expect((await whoami(onB)).status).toBe(200);
    expect(b.app.ctx.sessionCache.stats.hits).toBe(hits + 1);
  });
});
