import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, createDb, sql, type Database } from '@acme/db';
import { Browser, csrfOf, traits } from '../../../services/identity/test/harness.ts';
import { UPSTREAM_HEADER } from '@acme/cluster/nginx';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Two identity processes on one PostgreSQL database behind the nginx that
 * `npm run start:cluster` puts in front of every service. Requests alternate between the two;
 * everything a later request needs (flows, CSRF, sessions, the code guard's counters) is in the
 * database, so a sign-in and a code-guessing lock hold whichever instance answers.
 *
 * PostgreSQL only (TEST_DATABASE_URL, the `TEST_DB=postgres` stage): PGlite is one process's
 * database and cannot be shared by two, so the PGlite stage does not collect this file (`*.pg.int.test.ts`).
 */
const adminServer = process.env.TEST_DATABASE_URL;
const PASSWORD = 'correct horse battery staple 42';
const LOCKED = 'Too many wrong codes were entered for this address. Please try again in an hour.';

describe('two identity instances behind nginx', () => {
  let cluster: RunningCluster;
  let db: Database;

  beforeAll(async () => {
    const databaseUrl = await createDatabase(adminServer!);
    db = await createDb({ url: databaseUrl });
    cluster = await startProcessCluster({
      databaseUrl,
      parts: ['identity'],
      instances: 2,
      ports: await freePorts(),
      logLevel: 'warn',
      // Mail stays in the outbox table, where the test reads the codes.
      extraEnv: { MAIL_WORKER: 'false' },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await db?.close();
  }, 60_000);

  const upstream = (res: { headers: Headers }) => res.headers.get(UPSTREAM_HEADER);

  async function createUser(email: string): Promise<void> {
    const res = await new Browser(cluster.urls.identityAdmin).post('/admin/identities', {
      json: {
        schema_id: 'default',
        traits: traits(email),
        credentials: { password: { config: { password: PASSWORD } } },
        verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
      },
    });
    expect(res.status, res.text).toBe(201);
  }

  /** The six-digit code of the newest mail queued for `to`. */
  async function lastCode(to: string): Promise<string> {
    const { rows } = await sql<{ text: string }>`
      select text from mail_outbox where "to" = ${to} order by created_at desc, id desc limit 1
    `.execute(db.kysely);
    const code = rows[0]?.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code queued for ${to}`);
    return code;
  }

  it('sends requests to each instance in turn', async () => {
    expect(cluster.processes.map((p) => p.name)).toEqual(['identity-1', 'identity-2']);
    const seen: (string | null)[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${cluster.urls.identityPublic}/health/alive`);
      expect(res.status).toBe(200);
      seen.push(upstream(res));
    }
    const [a, b] = seen;
    expect(a).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(b).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(a).not.toBe(b);
    expect(seen).toEqual([a, b, a, b, a, b]);
  });

  it('signs in with a password whichever instance answers each step', async () => {
    const email = 'two-instances@example.com';
    await createUser(email);
    const b = new Browser(cluster.urls.identityPublic);
    const flow = await b.get('/self-service/login/browser', { accept: 'json' });
    expect(flow.status).toBe(200);
    const submitted = await b.post(`/self-service/login?flow=${flow.body.id}`, {
      json: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow.body) },
      accept: 'json',
    });
    expect(submitted.status, submitted.text).toBe(200);
    // The flow was made on one instance and submitted on the other.
    expect(upstream(submitted)).not.toBe(upstream(flow));
    // The session is in the database: both instances know it.
    const first = await b.get('/sessions/whoami', { accept: 'json' });
    const second = await b.get('/sessions/whoami', { accept: 'json' });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(new Set([upstream(first), upstream(second)]).size).toBe(2);
    expect(second.body.identity.traits.email).toBe(email);
  });

  it('locks recovery after 10 wrong codes spread over both instances', async () => {
    const email = 'guessed@example.com';
    await createUser(email);
    const b = new Browser(cluster.urls.identityPublic);
    const start = () => b.get('/self-service/recovery/browser', { accept: 'json' });
    const submit = (flow: any, json: Record<string, unknown>) =>
      b.post(`/self-service/recovery?flow=${flow.id}`, {
        json: { ...json, csrf_token: csrfOf(flow) },
        accept: 'json',
      });
    const answeredBy = new Set<string | null>();
    // Two flows with 5 wrong codes each (a flow dies at its fifth): 10 for the address.
    for (let round = 0; round < 2; round++) {
      const flow = await start();
      expect(flow.status).toBe(200);
      const sent = await submit(flow.body, { method: 'code', email });
      expect(sent.status, sent.text).toBe(200);
      for (let i = 0; i < 5; i++) {
        const right = await lastCode(email);
        const res = await submit(sent.body, {
          method: 'code',
          code: right === '000000' ? '111111' : '000000',
        });
        expect(res.status, res.text).toBe(200);
        answeredBy.add(upstream(res));
      }
    }
    expect(answeredBy.size).toBe(2);
    // A third flow with a fresh code: even the right code is refused, on either instance.
    const flow = await start();
    const sent = await submit(flow.body, { method: 'code', email });
    expect(sent.status, sent.text).toBe(200);
    const right = await submit(sent.body, { method: 'code', code: await lastCode(email) });
    expect(right.status, right.text).toBe(400);
    expect(right.body.ui.messages).toEqual([expect.objectContaining({ id: 4000001, text: LOCKED })]);
    const again = await submit(sent.body, { method: 'code', code: await lastCode(email) });
    expect(upstream(again)).not.toBe(upstream(right));
    expect(again.status, again.text).toBe(400);
    expect((await b.get('/sessions/whoami', { accept: 'json' })).status).toBe(401);
  });
});
