import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 31, item 5: the last-org-admin guard counts only org-admins who can sign in. An invitee
// who never onboarded (invitation pending or revoked) holds the role on paper only: behind them,
// the one real admin could step down and leave the organisation with no one who can manage it.

describe('console: the organisation keeps an org-admin who can sign in', () => {
  let stack: ConsoleStack;
  let staffToken = '';

  const invite = async (organisationId: string, email: string) => {
    const res = await http(`${stack.svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: { organisationId, email, firstName: 'Invited', lastName: 'Admin', role: 'org-admin' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as any;
  };

  /** The org-admins who can sign in: active, with an identity, not an invitee who never onboarded. */
  const adminsWhoCanSignIn = async (organisationId: string) =>
    (
      await sql<{ id: string }>`
        select u.id from users u
        where u.organisation_id = ${organisationId} and u.role = 'org-admin'
          and u.deactivated_at is null and u.identity_id is not null
          and not exists (select 1 from invitations i where i.user_id = u.id and i.state <> 'accepted')`.execute(
        stack.db.kysely,
      )
    ).rows.map((r) => r.id);

  beforeAll(async () => {
    stack = await startConsoleStack();
    const provider = await stack.newOrganisation('staff.test');
    const staff = await stack.newUser(provider, 'staff.test', 'super-admin');
    staffToken = await stack.tokenFor(staff.identityId);
  }, 60_000);
  afterAll(async () => stack?.close());

  it('the only admin who can sign in cannot step down behind a pending invitee', async () => {
    const org = await stack.newOrganisation('pending.test');
    const real = await stack.newUser(org, 'pending.test', 'org-admin');
    await invite(org, 'invitee@pending.test');
    const token = await stack.tokenFor(real.identityId);
    const base = `/console/organisations/${org}/members/${real.id}`;
    const demote = await stack.call(token, 'POST', `${base}/role`, { role: 'member' });
    expect(demote.status, JSON.stringify(demote.body)).toBe(409);
    expect(demote.body.errorCode).toBe('LAST_ORG_ADMIN');
    const deactivate = await stack.call(token, 'POST', `${base}/deactivate`);
    expect(deactivate.status).toBe(409);
    expect(deactivate.body.errorCode).toBe('LAST_ORG_ADMIN');
    expect(await adminsWhoCanSignIn(org)).toEqual([real.id]);
  });

  it('the only admin who can sign in cannot step down behind a revoked invitee', async () => {
    const org = await stack.newOrganisation('revoked.test');
    const real = await stack.newUser(org, 'revoked.test', 'org-admin');
    const invitation = await invite(org, 'invitee@revoked.test');
    const revoked = await http(`${stack.svc.adminUrl}/admin/invitations/${invitation.id}/revoke`, {
      method: 'POST',
    });
    expect(revoked.status).toBe(200);
    const token = await stack.tokenFor(real.identityId);
    const base = `/console/organisations/${org}/members/${real.id}`;
    const demote = await stack.call(token, 'POST', `${base}/role`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.body.errorCode).toBe('LAST_ORG_ADMIN');
    const deactivate = await stack.call(staffToken, 'POST', `${base}/deactivate`);
    expect(deactivate.status).toBe(409);
    expect(deactivate.body.errorCode).toBe('LAST_ORG_ADMIN');
    expect(await adminsWhoCanSignIn(org)).toEqual([real.id]);
  });

  it('an invitee who never onboarded may be demoted while a real admin remains', async () => {
    const org = await stack.newOrganisation('demote-invitee.test');
    await stack.newUser(org, 'demote-invitee.test', 'org-admin');
    const invitation = await invite(org, 'invitee@demote-invitee.test');
    const res = await stack.call(
      staffToken,
      'POST',
      `/console/organisations/${org}/members/${invitation.userId}/role`,
      { role: 'member' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.role).toBe('member');
  });

  for (const [step, request] of [
    ['a role change', { path: 'role', body: { role: 'admin' } }],
    ['a deactivation', { path: 'deactivate', body: undefined }],
  ] as const) {
    it(`threat: ${step} decided on a stale read of the member leaves the organisation without an org-admin`, async () => {
      const domain = `stale-${request.path}.test`;
      const org = await stack.newOrganisation(domain);
      const a = await stack.newUser(org, domain, 'org-admin');
      const b = await stack.newUser(org, domain, 'member');
      const token = await stack.tokenFor(a.identityId);
      const base = (id: string) => `/console/organisations/${org}/members/${id}`;
      // The request on B reads B as a member, then its transaction waits until the others are done.
      const db = stack.svc.app.context.db;
      const transaction = db.transaction;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let reached!: () => void;
      const waiting = new Promise<void>((resolve) => (reached = resolve));
      db.transaction = (() => {
        db.transaction = transaction;
        const builder = transaction.call(db);
        return {
          execute: async (fn: any) => {
            reached();
            await gate;
            return builder.execute(fn);
          },
        };
      }) as any;
      const stale = stack.call(token, 'POST', `${base(b.id)}/${request.path}`, request.body);
      await waiting;
      // B is promoted, then A steps down (B counts as the org-admin who remains).
      expect((await stack.call(token, 'POST', `${base(b.id)}/role`, { role: 'org-admin' })).status).toBe(200);
      expect((await stack.call(token, 'POST', `${base(a.id)}/role`, { role: 'member' })).status).toBe(200);
      release();
      const late = await stale;
      expect(late.status, JSON.stringify(late.body)).toBe(409);
      expect(late.body.errorCode).toBe('LAST_ORG_ADMIN');
      expect(await adminsWhoCanSignIn(org)).toEqual([b.id]);
    });
  }

  it('50 parallel demotions and deactivations leave at least one org-admin who can sign in', async () => {
    const org = await stack.newOrganisation('parallel.test');
    const admins: { id: string; identityId: string }[] = [];
    for (let i = 0; i < 5; i++) admins.push(await stack.newUser(org, 'parallel.test', 'org-admin'));
    await invite(org, 'pending@parallel.test');
    const revoked = await invite(org, 'revoked@parallel.test');
    await http(`${stack.svc.adminUrl}/admin/invitations/${revoked.id}/revoke`, { method: 'POST' });
    const tokens = await Promise.all(admins.map((a) => stack.tokenFor(a.identityId)));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const target = admins[i % admins.length]!;
        // Half by the provider's staff, half by the admins themselves (on another or themselves).
        const caller = i % 2 === 0 ? staffToken : tokens[(i * 3) % tokens.length]!;
        const path = `/console/organisations/${org}/members/${target.id}`;
        return i % 3 === 0
          ? stack.call(caller, 'POST', `${path}/deactivate`)
          : stack.call(caller, 'POST', `${path}/role`, { role: i % 3 === 1 ? 'member' : 'admin' });
      }),
    );
    // Each answer is a success or a documented refusal; never a 5xx.
    for (const res of results) expect([200, 401, 403, 409], JSON.stringify(res.body)).toContain(res.status);
    expect(results.some((r) => r.status === 409 && r.body.errorCode === 'LAST_ORG_ADMIN')).toBe(true);
    expect(await adminsWhoCanSignIn(org)).toHaveLength(1);
  }, 120_000);
});
