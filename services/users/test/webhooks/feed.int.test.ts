import { randomUUID } from 'node:crypto';
import { typed } from '@acme/db';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, systemOrigin } from '../../src/events/events.ts';
import type { UsersDb } from '../../src/db-types.ts';
import { runWebhookRound } from '../../src/webhooks/worker.ts';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from '../console/console-harness.ts';
import { startReceiver, verified } from './receiver.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const WRITES = 1000;
/** Writers at once: each commits its events one after another, all of them interleaved. */
const WRITERS = 40;

/**
 * Follows a feed from its start while `write` runs, until the writers are done and a page comes back
 * empty (caught up). Returns every id read, in order.
 */
async function followWhileWriting(
  read: (after: string | undefined) => Promise<{ ids: string[]; next: string }>,
  write: () => Promise<unknown>,
): Promise<string[]> {
  let done = false;
  const writers = write().then(() => {
    done = true;
  });
  const seen: string[] = [];
  let after: string | undefined;
  const deadline = Date.now() + 180_000;
  for (;;) {
    const finished = done;
    const page = await read(after);
    seen.push(...page.ids);
    after = page.next;
    if ((finished && page.ids.length === 0) || Date.now() > deadline) break;
    // A follower polls: a short page means it has caught up for now.
    if (page.ids.length < 100) await new Promise((r) => setTimeout(r, 50));
  }
  await writers;
  return seen;
}

/** `count` writes by `width` writers at once (a database pool of 10 serves them without timing out). */
async function inParallel(
  count: number,
  width: number,
  write: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await write(next++);
    }),
  );
}

const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

describe('event feeds: /console/events and the identity service’s /admin/security-events?after=', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  let member: { id: string; identityId: string };
  let adminToken = '';
  let strangerToken = '';
  const db = () => typed<UsersDb>(stack.db);
  /** One identity security event, as the identity service's log holds it (the service shares the database). */
  const identityEvent = (type: string, subjectId: string, details: Record<string, string>) =>
    sql`insert into identity_security_events (id, occurred_at, type, actor_kind, actor_id, subject_id, details)
        values (${randomUUID()}, ${new Date()}, ${type}, 'person', ${subjectId}, ${subjectId}, ${JSON.stringify(details)}::jsonb)`.execute(
      stack.db.kysely,
    );
  const identityEventIds = async () =>
    (await sql<{ id: string }>`select id from identity_security_events`.execute(stack.db.kysely)).rows.map(
      (r) => r.id,
    );

  const consoleFeed = (token: string, after?: string, limit = 100) =>
    stack.call(
      token,
      'GET',
      `/console/events?${new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) })}`,
    );
  const identityFeed = (after?: string, limit = 250) =>
    http(
      `${stack.urls.identityAdmin}/admin/security-events?${new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) })}`,
    );

  beforeAll(async () => {
    stack = await startConsoleStack({
      env: {
        WEBHOOK_HTTP_HOSTS: '127.0.0.1',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // The follower reads as fast as it can; the console's rate limit is not under test here.
        CONSOLE_RATE_LIMIT_PER_TOKEN: '100000',
        CONSOLE_RATE_LIMIT_PER_IP: '100000',
      },
    });
    acme = await stack.newOrganisation('feed.test');
    other = await stack.newOrganisation('feed-other.test');
    const admin = await stack.newUser(acme, 'feed.test', 'org-admin');
    member = await stack.newUser(acme, 'feed.test', 'member');
    const stranger = await stack.newUser(other, 'feed-other.test', 'org-admin');
    adminToken = await stack.tokenFor(admin.identityId);
    strangerToken = await stack.tokenFor(stranger.identityId);
  }, 90_000);
  afterAll(async () => stack?.close());

  it('a reader following /console/events while 1,000 events are written in parallel sees each exactly once', async () => {
    const seen = await followWhileWriting(
      async (after) => {
        const res = await consoleFeed(adminToken, after, 250);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.headers.get('link')).toMatch(/^<\/console\/events\?after=[^>]+>; rel="next"$/);
        for (const e of res.body.events) expect(e.organisationId).toBe(acme);
        return { ids: res.body.events.map((e: any) => e.id), next: res.body.next };
      },
      // 1,000 at once would queue 990 for the pool's 10 connections, past its 5 s wait on a loaded machine.
      () =>
        inParallel(WRITES, WRITERS, (i) =>
          recordEvent(
            db(),
            systemOrigin(),
            {
              organisationId: acme,
              type: 'member.unlocked',
              subjectId: member.id,
              details: { n: String(i) },
            },
            stack.clock.now(),
          ),
        ),
    );
    const written = await db()
      .selectFrom('security_events')
      .select('id')
      .where('organisation_id', '=', acme)
      .where('type', '=', 'member.unlocked')
      .execute();
    expect(written).toHaveLength(WRITES);
    expect(duplicates(seen)).toEqual([]);
    const seenSet = new Set(seen);
    expect(written.filter((w) => !seenSet.has(w.id))).toEqual([]);
  }, 240_000);

  it('a reader following the identity service’s feed while 1,000 events are written in parallel sees each exactly once', async () => {
    const before = new Set(await identityEventIds());
    const seen = await followWhileWriting(
      async (after) => {
        const res = await identityFeed(after);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const next = /[?&]after=([^&>]+)/.exec(res.headers.get('link') ?? '')?.[1];
        expect(next).toBeDefined();
        return { ids: (res.body as any[]).map((e) => e.id), next: decodeURIComponent(next!) };
      },
      () =>
        inParallel(WRITES, WRITERS, () =>
          identityEvent('signin.failed', member.identityId, { reason: 'wrong_password' }),
        ),
    );
    const written = (await identityEventIds()).filter((id) => !before.has(id));
    expect(written).toHaveLength(WRITES);
    expect(duplicates(seen)).toEqual([]);
    const seenSet = new Set(seen);
    expect(written.filter((id) => !seenSet.has(id))).toEqual([]);
  }, 240_000);

  it('identity security events reach the organisation’s feed and its webhooks, with the member as subject', async () => {
    const r = await startReceiver();
    try {
      const hook = await stack.call(adminToken, 'POST', `/console/organisations/${acme}/webhooks`, {
        url: r.url,
        eventTypes: ['session.signed_in'],
      });
      expect(hook.status).toBe(201);
      await identityEvent('signin.succeeded', member.identityId, { method: 'password' });
      await runWebhookRound(stack.svc.app.context, (error) => {
        throw error;
      });
      expect(r.received).toHaveLength(1);
      const payload = verified(hook.body.secret, r.received[0]!);
      expect(payload).toMatchObject({
        type: 'session.signed_in',
        data: {
          organisationId: acme,
          subjectId: member.id,
          source: 'identity',
          details: { method: 'password' },
        },
      });
      // In the console's feed too; never in another organisation's.
      const mine: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await consoleFeed(adminToken, after, 1000);
        mine.push(...page.body.events.map((e: any) => e.id));
        if (page.body.events.length === 0) break;
        after = page.body.next;
      }
      expect(mine).toContain(payload.data.id);
      const theirs = await consoleFeed(strangerToken, undefined, 1000);
      expect(theirs.status).toBe(200);
      expect(theirs.body.events.map((e: any) => e.organisationId).filter((o: string) => o !== other)).toEqual(
        [],
      );
    } finally {
      await r.close();
    }
  });

  it('feed cursor forgery: a cursor edited by hand, or another organisation’s, is 400, never its events', async () => {
    const mine = await consoleFeed(adminToken, undefined, 1);
    expect(mine.status).toBe(200);
    const cursor: string = mine.body.next;
    // Another organisation's admin presents acme's cursor.
    const foreign = await consoleFeed(strangerToken, cursor);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errorCode).toBe('INVALID_REQUEST');
    // The same place, its MAC left as it was, moved back to the start.
    const [, mac] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
    const edited = Buffer.from(`0.${mac}`).toString('base64url');
    expect((await consoleFeed(adminToken, edited)).status).toBe(400);
    for (const junk of ['x', 'MA', '', '%00', 'a'.repeat(150)]) {
      const res = await consoleFeed(adminToken, junk === '' ? undefined : junk);
      expect(res.status, junk).toBe(junk === '' ? 200 : 400);
    }
    // The identity service's feed: a cursor it has not given (beyond its head), or junk, is 400.
    const beyond = Buffer.from('security-events:999999999999').toString('base64url');
    expect((await identityFeed(beyond)).status).toBe(400);
    expect((await identityFeed('not-a-cursor')).status).toBe(400);
    expect((await identityFeed(undefined, 5000)).status).toBe(400);
    // The subject form still answers as before.
    const bySubject = await http(
      `${stack.urls.identityAdmin}/admin/security-events?subject_id=${member.identityId}&page_size=1`,
    );
    expect(bySubject.status).toBe(200);
    expect((bySubject.body as any[])[0].subject_id).toBe(member.identityId);
  });
});
