import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestService } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 24: the console's security event log merges the identity service's events (sign-ins,
// lockouts, sessions) with the user service's own, by time, through the identity admin API; the
// organisation comes from the members' identities, so another organisation's sign-ins never show.

const PASSWORD = 'Research-Demo-2026!';
const UA = 'Mozilla/5.0 MergedEventsTest/1.0';

describe('console API: the security event log across both services', () => {
  let stack: ConsoleStack;
  let acme = '';
  let ada: { id: string; identityId: string; email: string };
  let grace: { id: string; identityId: string; email: string };
  let stranger: { id: string; identityId: string; email: string };
  let adaToken = '';
  const base = () => `/console/organisations/${acme}`;

  /** A native (API flow) password sign-in at the real identity service. */
  async function signIn(email: string, password: string, userAgent = UA): Promise<number> {
    const flow = await fetch(`${stack.urls.identityPublic}/self-service/login/api`, {
      headers: { accept: 'application/json' },
    });
    const { id } = (await flow.json()) as { id: string };
    const res = await fetch(`${stack.urls.identityPublic}/self-service/login?flow=${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': userAgent },
      body: JSON.stringify({ method: 'password', identifier: email, password }),
    });
    await res.arrayBuffer();
    return res.status;
  }

  const events = async (query = '') => {
    const res = await stack.call(adaToken, 'GET', `${base()}/events${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { events: any[]; nextCursor: string | null };
  };

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    const other = await stack.newOrganisation('other.test');
    ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    grace = await stack.newUser(acme, 'acme.test', 'member');
    stranger = await stack.newUser(other, 'other.test', 'member');
    adaToken = await stack.tokenFor(ada.identityId);
    expect(await signIn(ada.email, PASSWORD)).toBe(200);
    expect(await signIn(grace.email, 'not her password')).toBe(400);
    expect(await signIn(grace.email, PASSWORD)).toBe(200);
    expect(await signIn(stranger.email, PASSWORD)).toBe(200);
    expect(await signIn(stranger.email, 'not his password')).toBe(400);
    stack.clock.advance(60_000); // the console's own events come after the sign-ins
    const unlock = await stack.call(adaToken, 'POST', `${base()}/members/${grace.id}/unlock`);
    expect(unlock.status).toBe(204);
  }, 60_000);
  afterAll(async () => stack?.close());

  it("lists both services' events newest first, identity events under the member's user id", async () => {
    const { events: all } = await events('?limit=100');
    const times = all.map((e) => e.occurredAt);
    expect(times).toEqual([...times].sort().reverse());
    const signIns = all.filter((e) => e.type === 'signin.succeeded');
    expect(signIns.map((e) => e.subjectId).sort()).toEqual([ada.id, grace.id].sort());
    expect(signIns[0]).toMatchObject({
      source: 'identity',
      organisationId: acme,
      actorKind: 'person',
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: UA,
      details: { method: 'password', aal: 'aal1' },
    });
    expect(signIns.find((e) => e.subjectId === grace.id).actorId).toBe(grace.id);
    const failed = all.filter((e) => e.type === 'signin.failed');
    expect(failed.map((e) => [e.subjectId, e.details.reason])).toEqual([[grace.id, 'invalid_credentials']]);
    // The unlock is in both logs, joined by one request id.
    const unlockedHere = all.find((e) => e.type === 'member.unlocked');
    const unlockedThere = all.find((e) => e.type === 'account.unlocked');
    expect(unlockedHere).toMatchObject({ source: 'users', actorId: ada.id, subjectId: grace.id });
    expect(unlockedThere).toMatchObject({ source: 'identity', actorKind: 'operator', subjectId: grace.id });
    expect(unlockedThere.requestId).toBe(unlockedHere.requestId);
    expect(all.some((e) => e.type === 'member.invited' || e.source === 'users')).toBe(true);
    expect(JSON.stringify(all)).not.toContain(PASSWORD);
  });

  it("another organisation's sign-ins never show in this organisation's log", async () => {
    const { events: all } = await events('?limit=100');
    expect(all.map((e) => e.subjectId)).not.toContain(stranger.id);
    expect(JSON.stringify(all)).not.toContain(stranger.identityId);
    // Asking for the stranger by id answers nothing either (not a member of this organisation).
    expect((await events(`?subjectId=${stranger.id}`)).events).toEqual([]);
  });

  it('filters by person and type across both sources', async () => {
    const graces = (await events(`?subjectId=${grace.id}&limit=100`)).events;
    expect(graces.length).toBeGreaterThanOrEqual(4);
    expect(new Set(graces.map((e) => e.subjectId))).toEqual(new Set([grace.id]));
    expect(new Set(graces.map((e) => e.source))).toEqual(new Set(['users', 'identity']));
    const failures = (await events('?type=signin.failed')).events;
    expect(failures.map((e) => e.type)).toEqual(['signin.failed']);
    const unlocks = (await events('?type=member.unlocked')).events;
    expect(unlocks.map((e) => e.source)).toEqual(['users']);
    const future = new Date(stack.clock.now().getTime() + 3_600_000).toISOString();
    expect((await events(`?from=${future}`)).events).toEqual([]);
  });

  it('pages across both sources without gaps or repeats', async () => {
    const { events: all } = await events('?limit=100');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await events(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 50);
    expect(seen).toEqual(all.map((e) => e.id));
    expect(pages).toBe(Math.ceil(all.length / 2));
  });

  it('exports both sources to CSV, sign-ins included', async () => {
    const res = await fetch(`${stack.svc.publicUrl}${base()}/events.csv`, {
      headers: { authorization: `Bearer ${adaToken}` },
    });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '"time","type","actor_kind","actor_id","subject_id","ip","user_agent","request_id","source","details"',
    );
    const signIn = lines.find((l) => l.includes('signin.succeeded') && l.includes(grace.id))!;
    expect(signIn).toContain(UA);
    expect(signIn).toContain(',"identity",');
    expect(lines.some((l) => l.includes('member.unlocked') && l.includes(',"users",'))).toBe(true);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it("a user agent with ';' cannot become a formula cell: the export keeps it one quoted text cell", async () => {
    const hostile = "Mozilla/5.0;=cmd|' /C calc'!A0;@SUM(1+1)";
    expect(await signIn(grace.email, PASSWORD, hostile)).toBe(200);
    const res = await fetch(`${stack.svc.publicUrl}${base()}/events.csv?type=signin.succeeded`, {
      headers: { authorization: `Bearer ${adaToken}` },
    });
    expect(res.status).toBe(200);
    const line = (await res.text()).split('\r\n').find((l) => l.includes('calc'))!;
    // One cell, quoted: neither a comma nor a semicolon locale splits it into `=cmd…` or `@SUM…`.
    expect(line).toContain(`,"${hostile}",`);
  });

  it('the identity service unreachable: the log answers 502 UPSTREAM_ERROR, never a partial list or a 500', async () => {
    const cut = await startTestService({
      db: stack.db,
      clock: stack.clock,
      env: { IDENTITY_PUBLIC_URL: stack.urls.identityPublic, OAUTH2_ADMIN_URL: stack.urls.oauth2Admin },
    });
    try {
      const auth = { authorization: `Bearer ${adaToken}` };
      const list = await http(`${cut.publicUrl}${base()}/events`, { headers: auth });
      expect(list.status).toBe(502);
      expect(list.body).toMatchObject({ errorCode: 'UPSTREAM_ERROR' });
      const csv = await http(`${cut.publicUrl}${base()}/events.csv`, { headers: auth });
      expect(csv.status).toBe(502);
      // A type only this service writes needs no identity service.
      const own = await http(`${cut.publicUrl}${base()}/events?type=member.unlocked`, { headers: auth });
      expect(own.status).toBe(200);
      expect((own.body as any).events.map((e: any) => e.type)).toEqual(['member.unlocked']);
    } finally {
      await cut.close();
    }
  });

  it("a member's page shows the last sign-in, the lockout and recent events of both services", async () => {
    for (let i = 0; i < 10; i++) await signIn(grace.email, 'still not her password');
    const locked = await stack.call(adaToken, 'GET', `${base()}/members/${grace.id}`);
    expect(locked.status).toBe(200);
    expect(locked.body.lastSignIn).toMatchObject({
      method: 'password',
      ip: expect.stringMatching(/127\.0\.0\.1/),
    });
    expect(locked.body.lockout.locked).toBe(true);
    expect(locked.body.lockout.failedAttempts).toBeGreaterThanOrEqual(10);
    expect(new Date(locked.body.lockout.lockedUntil).getTime()).toBeGreaterThan(Date.now());
    expect(locked.body.recentEvents.map((e: any) => e.type)).toContain('account.locked');
    expect(locked.body.recentEvents).toHaveLength(10);

    expect((await stack.call(adaToken, 'POST', `${base()}/members/${grace.id}/unlock`)).status).toBe(204);
    const unlocked = await stack.call(adaToken, 'GET', `${base()}/members/${grace.id}`);
    expect(unlocked.body.lockout).toEqual({ locked: false, lockedUntil: null, failedAttempts: 0 });
  });
});
