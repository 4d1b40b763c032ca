import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, Session } from '@ory/client';
import { createTestDb, migrate, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { createMailer, MAIL_NAMESPACE, migrations as mailMigrations } from '@acme/mail';
import { openApiErrors } from '@acme/test-kit/openapi';
import {
  Browser,
  createUser,
  login,
  startFlow,
  startHarness,
  submitFlow,
  csrfOf,
  type Harness,
  type Res,
} from '../harness.ts';

/**
 * Kratos's admin session and courier routes: every answer is checked against Kratos's published
 * OpenAPI document (the documented status, or `default` for an error).
 */

let h: Harness;
let db: Database;
let admin: Browser;
beforeAll(async () => {
  db = await createTestDb();
  await migrate(db, MAIL_NAMESPACE, mailMigrations);
  const clock = new FakeClock(new Date('2026-03-01T10:00:00.000Z'));
  h = await startHarness({}, { db, clock }, { mailer: createMailer({ db, clock }) });
  admin = new Browser(h.adminUrl);
});
afterAll(async () => {
  await h.close();
  await db.close();
});

/** The answer matches Kratos's document for that operation. */
function kratos(res: Res, path: string, method: string) {
  expect(openApiErrors('kratos', path, method, res.status, res.text === '' ? undefined : res.body)).toEqual(
    [],
  );
}

async function signIn(email: string): Promise<{ id: string; b: Browser; sid: string }> {
  const id = await createUser(h, email);
  const b = new Browser(h.publicUrl);
  const res = await login(b, email);
  expect(res.status, res.text).toBe(200);
  return { id, b, sid: (res.body.session as Session).id };
}

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('GET /admin/sessions', () => {
  it('pages as Kratos pages (page_size, page_token, Link rel=next), filters by active, expands identity and devices', async () => {
    const a = await signIn('list-a@example.com');
    const b = await signIn('list-b@example.com');
    const c = await signIn('list-c@example.com');
    expect((await admin.request('DELETE', `/admin/sessions/${c.sid}`)).status).toBe(204);

    const seen: Session[] = [];
    let next: string | undefined = '/admin/sessions?page_size=1&expand=identity&expand=devices';
    while (next) {
      const res = await admin.get(next);
      expect(res.status, res.text).toBe(200);
      kratos(res, '/admin/sessions', 'get');
      expect(res.body).toHaveLength(1);
      seen.push(...(res.body as Session[]));
      const link = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      next = link ? link.replace(/^https?:\/\/[^/]+/, '') : undefined;
    }
    const ids = seen.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([a.sid, b.sid, c.sid]));
    const ofA = seen.find((s) => s.id === a.sid)!;
    expect(ofA.identity?.id).toBe(a.id);
    expect(ofA.devices?.length).toBe(1);
    expect(seen.find((s) => s.id === c.sid)!.active).toBe(false);

    const active = await admin.get('/admin/sessions?active=true');
    kratos(active, '/admin/sessions', 'get');
    const activeIds = (active.body as Session[]).map((s) => s.id);
    expect(activeIds).toEqual(expect.arrayContaining([a.sid, b.sid]));
    expect(activeIds).not.toContain(c.sid);
    for (const s of active.body as Session[]) {
      expect(s.active).toBe(true);
      expect(s.identity).toBeUndefined();
      expect(s.devices).toBeUndefined();
    }
    const inactive = await admin.get('/admin/sessions?active=false');
    expect((inactive.body as Session[]).map((s) => s.id)).toEqual([c.sid]);
  });

  it('abuse: a malformed page_size, page_token, active or expand is a 400 in Kratos shape', async () => {
    for (const q of [
      'page_size=0',
      'page_size=1001',
      'page_size=x',
      'page_token=nope',
      'active=maybe',
      'expand=secrets',
    ]) {
      const res = await admin.get(`/admin/sessions?${q}`);
      expect(res.status, q).toBe(400);
      kratos(res, '/admin/sessions', 'get');
      expect(res.body.error.code).toBe(400);
    }
  });
});

describe('GET /admin/sessions/{id}, DELETE /admin/sessions/{id}', () => {
  it('ends one session as a logout does: whoami refuses it at once, the other session of the identity lives', async () => {
    const s = await signIn('end-one@example.com');
    const other = new Browser(h.publicUrl);
    expect((await login(other, 'end-one@example.com')).status).toBe(200);
    // Served from the whoami cache before the end, to prove the cache does not outlive it.
    expect((await s.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
    expect((await s.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);

    const got = await admin.get(`/admin/sessions/${s.sid}?expand=identity`);
    kratos(got, '/admin/sessions/{id}', 'get');
    expect(got.body.identity.id).toBe(s.id);

    const del = await admin.request('DELETE', `/admin/sessions/${s.sid}`);
    expect(del.status).toBe(204);
    expect((await s.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    expect((await other.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
    const events = await h.db.kysely
      .selectFrom('identity_security_events')
      .select(['type', 'actor_kind'])
      .where('subject_id', '=', s.id)
      .where('type', '=', 'session.ended')
      .execute();
    expect(events).toEqual([{ type: 'session.ended', actor_kind: 'operator' }]);
    // Ending it again changes nothing and records nothing.
    expect((await admin.request('DELETE', `/admin/sessions/${s.sid}`)).status).toBe(204);
  });

  it('abuse: an unknown session is a 404 and a malformed id a 400, both in Kratos shape', async () => {
    for (const [method, path] of [
      ['GET', '/admin/sessions/{id}'],
      ['DELETE', '/admin/sessions/{id}'],
    ] as const) {
      const unknown = await admin.request(method, path.replace('{id}', UNKNOWN));
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 404, status: 'Not Found' });
      const bad = await admin.request(method, path.replace('{id}', '__proto__'));
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe(400);
    }
  });
});

describe('PATCH /admin/sessions/{id}/extend', () => {
  it('gives the session a full lifespan from now (204)', async () => {
    const s = await signIn('extend@example.com');
    const before = (await admin.get(`/admin/sessions/${s.sid}`)).body as Session;
    h.clock.advance(60 * 60_000);
    const res = await admin.request('PATCH', `/admin/sessions/${s.sid}/extend`);
    expect(res.status).toBe(204);
    kratos(res, '/admin/sessions/{id}/extend', 'patch');
    const after = (await admin.get(`/admin/sessions/${s.sid}`)).body as Session;
    expect(new Date(after.expires_at!).getTime() - new Date(before.expires_at!).getTime()).toBe(60 * 60_000);
    expect((await s.b.get('/sessions/whoami', { accept: 'json' })).body.expires_at).toBe(after.expires_at);
  });

  it('abuse: an expired or ended session is not brought back (404), nor an unknown one', async () => {
    const expired = await signIn('extend-expired@example.com');
    const ended = await signIn('extend-ended@example.com');
    await admin.request('DELETE', `/admin/sessions/${ended.sid}`);
    h.clock.advance(h.config.sessionLifespanMs + 1000);
    for (const id of [expired.sid, ended.sid, UNKNOWN]) {
      const res = await admin.request('PATCH', `/admin/sessions/${id}/extend`);
      expect(res.status).toBe(404);
      kratos(res, '/admin/sessions/{id}/extend', 'patch');
    }
    expect((await expired.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });
});

describe('GET and DELETE /admin/identities/{id}/sessions', () => {
  it("lists only that identity's sessions (with identity and devices) and ends them all", async () => {
    const mine = await signIn('mine@example.com');
    const second = new Browser(h.publicUrl);
    await login(second, 'mine@example.com');
    const theirs = await signIn('theirs@example.com');

    const list = await admin.get(`/admin/identities/${mine.id}/sessions`);
    expect(list.status).toBe(200);
    kratos(list, '/admin/identities/{id}/sessions', 'get');
    const sessions = list.body as Session[];
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s.identity?.id).toBe(mine.id);
      expect(s.devices).toHaveLength(1);
    }
    expect(sessions.map((s) => s.id)).not.toContain(theirs.sid);

    const del = await admin.request('DELETE', `/admin/identities/${mine.id}/sessions`);
    expect(del.status).toBe(204);
    kratos(del, '/admin/identities/{id}/sessions', 'delete');
    const active = await admin.get(`/admin/identities/${mine.id}/sessions?active=true`);
    expect(active.body).toEqual([]);
    expect((await mine.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    expect((await second.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
    expect((await theirs.b.get('/sessions/whoami', { accept: 'json' })).status).toBe(200);
  });

  it('abuse: an unknown identity is a 404 in Kratos shape', async () => {
    const res = await admin.get(`/admin/identities/${UNKNOWN}/sessions`);
    expect(res.status).toBe(404);
    kratos(res, '/admin/identities/{id}/sessions', 'get');
  });
});

describe('POST /admin/recovery/link', () => {
  it('is refused in Kratos shape (a token in a URL); /admin/recovery/code is the way', async () => {
    const id = await createUser(h, 'link@example.com');
    const res = await admin.post('/admin/recovery/link', { json: { identity_id: id }, accept: 'json' });
    expect(res.status).toBe(400);
    kratos(res, '/admin/recovery/link', 'post');
    expect(res.body.error.reason).toContain('/admin/recovery/code');
  });
});

describe('GET /admin/courier/messages', () => {
  it('lists the outbox as Kratos messages, filtered by recipient and status, paged, and by id', async () => {
    await createUser(h, 'courier@example.com');
    const b = new Browser(h.publicUrl);
    for (let i = 0; i < 2; i++) {
      const flow = await startFlow<{ id: string; ui: { nodes: { attributes: object }[] } }>(b, 'recovery');
      const res = await submitFlow(b, 'recovery', flow, {
        method: 'code',
        email: 'courier@example.com',
        csrf_token: csrfOf(flow),
      });
      expect(res.status, res.text).toBe(200);
    }
    const res = await admin.get(
      '/admin/courier/messages?recipient=courier@example.com&status=queued&page_size=1',
    );
    expect(res.status).toBe(200);
    kratos(res, '/admin/courier/messages', 'get');
    const [first] = res.body as Message[];
    expect(first).toMatchObject({ recipient: 'courier@example.com', status: 'queued', type: 'email' });
    expect(first!.body).toMatch(/\b\d{6}\b/);
    const link = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    expect(link).toContain('recipient=courier%40example.com');
    const second = await admin.get(link!.replace(/^https?:\/\/[^/]+/, ''));
    expect((second.body as Message[])[0]!.id).not.toBe(first!.id);

    const one = await admin.get(`/admin/courier/messages/${first!.id}`);
    kratos(one, '/admin/courier/messages/{id}', 'get');
    expect(one.body).toEqual(first);
    expect(
      (await admin.get('/admin/courier/messages?recipient=courier@example.com&status=sent')).body,
    ).toEqual([]);
  });

  it('abuse: unknown message 404, malformed id, status or page token 400', async () => {
    const unknown = await admin.get(`/admin/courier/messages/${UNKNOWN}`);
    expect(unknown.status).toBe(404);
    kratos(unknown, '/admin/courier/messages/{id}', 'get');
    for (const path of [
      '/admin/courier/messages/constructor',
      '/admin/courier/messages?status=lost',
      '/admin/courier/messages?page_token=x',
    ]) {
      const res = await admin.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
  });
});
