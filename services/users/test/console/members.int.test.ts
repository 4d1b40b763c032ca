import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('console API: members, authorised from the database per call', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  let ada: { id: string; identityId: string; email: string };
  let lead: { id: string; identityId: string };
  let grace: { id: string; identityId: string; email: string };
  let stranger: { id: string; identityId: string };
  let staff: { id: string; identityId: string };
  const tokens: Record<string, string> = {};
  const base = () => `/console/organisations/${acme}`;

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    lead = await stack.newUser(acme, 'acme.test', 'admin');
    grace = await stack.newUser(acme, 'acme.test', 'member');
    stranger = await stack.newUser(other, 'other.test', 'org-admin');
    const provider = await stack.newOrganisation('provider.test');
    staff = await stack.newUser(provider, 'provider.test', 'super-admin');
    for (const [name, person] of Object.entries({ ada, lead, grace, stranger, staff })) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
  }, 60_000);
  afterAll(async () => stack?.close());

  it('GET /console/me names the caller, their organisation, permissions and the roles they may assign', async () => {
    const res = await stack.call(tokens.ada, 'GET', '/console/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userId: ada.id, organisationId: acme, role: 'org-admin' });
    expect(res.body.permissions).toContain('ManageOrganisationUsers');
    expect(res.body.assignableRoles).toEqual(['member', 'admin', 'org-admin']);
  });

  it('lists members with search and paging', async () => {
    const all = await stack.call(tokens.ada, 'GET', `${base()}/members`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.members.map((m: any) => m.id).sort()).toEqual([ada.id, lead.id, grace.id].sort());
    const page = await stack.call(tokens.ada, 'GET', `${base()}/members?pageSize=2&page=2`);
    expect(page.body).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page.body.members).toHaveLength(1);
    const found = await stack.call(
      tokens.ada,
      'GET',
      `${base()}/members?q=${encodeURIComponent(grace.email)}`,
    );
    expect(found.body.members.map((m: any) => m.id)).toEqual([grace.id]);
    // `%` is a character to look for, not a wildcard.
    const wildcard = await stack.call(tokens.ada, 'GET', `${base()}/members?q=%25`);
    expect(wildcard.body.total).toBe(0);
  });

  it("a search's % and _ are characters to look for, never wildcards matching other people; it finds the start of the full or last name in any case", async () => {
    const org = await stack.newOrganisation('search.test');
    const admin = await stack.newUser(org, 'search.test', 'org-admin');
    const named = async (first: string, last: string) =>
      (await stack.newUser(org, 'search.test', 'member', { first, last })).id;
    const annUnderscore = await named('Ann_e', 'Ward');
    const annie = await named('Annie', 'Wardle');
    const percent = await named('Bob', 'O%Hara');
    const oxhara = await named('Bob', 'Oxhara');
    const token = await stack.tokenFor(admin.identityId);
    const search = async (q: string) => {
      const res = await stack.call(
        token,
        'GET',
        `/console/organisations/${org}/members?q=${encodeURIComponent(q)}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.members.length);
      return res.body.members.map((m: any) => m.id).sort();
    };
    expect(await search('ANN')).toEqual([annUnderscore, annie].sort());
    expect(await search('ann_')).toEqual([annUnderscore]);
    expect(await search('o%')).toEqual([percent]);
    expect(await search('_')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('\\')).toEqual([]);
    expect(await search('ward')).toEqual([annUnderscore, annie].sort());
    expect(await search('annie wardl')).toEqual([annie]);
    expect(await search('bob o')).toEqual([percent, oxhara].sort());
    expect(await search('search.test')).toEqual([]);
    const nul = await stack.call(token, 'GET', `/console/organisations/${org}/members?q=%00`);
    expect(nul.status).toBe(400);
    expect(await search(admin.email.toUpperCase())).toEqual([admin.id]);
  });

  it('a one-letter search: by address page after page, counted exactly up to 1,000 past the page and "or more" beyond', async () => {
    const org = await stack.newOrganisation('broad.test');
    const admin = await stack.newUser(org, 'broad.test', 'org-admin');
    // 1,300 people, their addresses in an order unrelated to their names: "k" finds 1,084 of them
    // (first name Kai, or last name Kern), "m" 866 (last name Moss), by name only.
    await sql`insert into users (id, organisation_id, email, first_name, last_name, role, created_at)
      select gen_random_uuid(), ${org}, 'p' || lpad(((i * 7919) % 1300)::text, 4, '0') || '@broad.test',
        case when i % 4 = 3 then 'Lee' else 'Kai' end, case when i % 3 = 0 then 'Kern' else 'Moss' end,
        'member', now()
      from generate_series(0, 1299) i`.execute(stack.db.kysely);
    const token = await stack.tokenFor(admin.identityId);
    const search = async (q: string, page: number, pageSize: number) => {
      const res = await stack.call(
        token,
        'GET',
        `/console/organisations/${org}/members?q=${q}&page=${page}&pageSize=${pageSize}`,
      );
      expect(res.status).toBe(200);
      return res.body as { members: { email: string }[]; total: number; totalExact: boolean };
    };
    const expected = async (letter: string) =>
      (
        await sql<{ email: string }>`select email from users where organisation_id = ${org}
          and (email like ${`${letter}%`} or lower(first_name) like ${`${letter}%`} or lower(last_name) like ${`${letter}%`})
          order by email`.execute(stack.db.kysely)
      ).rows.map((r) => r.email);
    const everyK = await expected('k');
    expect(everyK).toHaveLength(1084);

    // Page after page of 25: the first three stop counting at 1,000 past the page; from the fourth
    // the count reaches every match. Together they are every match once, by address.
    const walked: string[] = [];
    for (let page = 1; page <= 44; page += 1) {
      const found = await search('K', page, 25);
      if (page <= 3) expect(found).toMatchObject({ total: 25 * page + 1000, totalExact: false });
      else expect(found).toMatchObject({ total: 1084, totalExact: true });
      expect(found.members).toHaveLength(page < 44 ? 25 : 9);
      walked.push(...found.members.map((m) => m.email));
    }
    expect(walked).toEqual(everyK);
    expect(await search('k', 45, 25)).toMatchObject({ members: [], total: 1084, totalExact: true });

    // Fewer matches than the bound: the exact total, the same order.
    const moss = await search('m', 2, 100);
    expect(moss).toMatchObject({ total: 866, totalExact: true });
    expect(moss.members.map((m) => m.email)).toEqual((await expected('m')).slice(100, 200));
    // Every address starts with "p": the page is the first 50 addresses, read without a count of all.
    const everyone = await search('p', 1, 50);
    expect(everyone).toMatchObject({ total: 1050, totalExact: false });
    expect(everyone.members.map((m) => m.email)).toEqual((await expected('p')).slice(0, 50));
    // `%` and `_` stay characters to look for on the broad path too.
    expect(await search('p%25', 1, 50)).toMatchObject({ members: [], total: 0, totalExact: true });
    expect(await search('p_', 1, 50)).toMatchObject({ members: [], total: 0, totalExact: true });
    // The list without a search counts everyone.
    const all = await stack.call(token, 'GET', `/console/organisations/${org}/members?pageSize=1`);
    expect(all.body).toMatchObject({ total: 1301, totalExact: true });
  });

  it('shows a member with their identity state and recent events', async () => {
    const res = await stack.call(tokens.ada, 'GET', `${base()}/members/${grace.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: grace.id,
      role: 'member',
      status: 'active',
      identityState: 'active',
      twoFactor: false,
    });
    expect(res.body.signInMethods).toContain('password');
    // Credential types only: no hash or other configuration.
    expect(JSON.stringify(res.body)).not.toContain('argon2');
    expect(res.body.identityId).toBeUndefined();
  });

  /** Every console route with a valid body, for the checks that must hold on all of them. */
  const everyRoute = (): [string, string, unknown?][] => [
    ['GET', `${base()}/members`],
    ['GET', `${base()}/members/${grace.id}`],
    ['POST', `${base()}/members/${grace.id}/role`, { role: 'admin' }],
    ['POST', `${base()}/members/${grace.id}/deactivate`],
    ['POST', `${base()}/members/${grace.id}/reactivate`],
    ['POST', `${base()}/members/${grace.id}/end-sessions`],
    ['POST', `${base()}/members/${grace.id}/unlock`],
    ['POST', `${base()}/members/${grace.id}/reset-2fa`],
    ['GET', `${base()}/invitations`],
    [
      'POST',
      `${base()}/invitations`,
      { email: 'nobody@acme.test', firstName: 'N', lastName: 'B', role: 'member' },
    ],
    ['POST', `${base()}/invitations/${grace.id}/resend`],
    ['POST', `${base()}/invitations/${grace.id}/revoke`],
    ['GET', `${base()}/events`],
    ['GET', `${base()}/events.csv`],
  ];

  describe('every route', () => {
    it('refuses a missing token (401) and a member without the permission (403), {errorCode, message}', async () => {
      for (const [method, path, json] of everyRoute()) {
        const anonymous = await stack.call(undefined, method, path, json);
        expect(anonymous.status, `${method} ${path}`).toBe(401);
        expect(anonymous.body).toMatchObject({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) });
        const member = await stack.call(tokens.grace, method, path, json);
        expect(member.status, `${method} ${path}`).toBe(403);
        expect(member.body).toMatchObject({ errorCode: 'PERMISSION_DENIED', message: expect.any(String) });
      }
    });

    it("refuses another organisation's admin (403 FORBIDDEN) and nothing changed", async () => {
      for (const [method, path, json] of everyRoute()) {
        const res = await stack.call(tokens.stranger, method, path, json);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.errorCode).toBe('FORBIDDEN');
      }
      const graceNow = await stack.call(tokens.ada, 'GET', `${base()}/members/${grace.id}`);
      expect(graceNow.body).toMatchObject({ role: 'member', status: 'active' });
    });
  });

  describe('authentication', () => {
    it('refuses a call without a token, with a malformed one, and with a forged one: 401', async () => {
      for (const token of [undefined, 'not a token', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln']) {
        const res = await stack.call(token, 'GET', `${base()}/members`);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ errorCode: 'UNAUTHENTICATED' });
        expect(typeof res.body.message).toBe('string');
      }
    });

    it('refuses an expired access token: 401', async () => {
      const now = stack.clock.now();
      stack.clock.advance(24 * 3_600_000);
      try {
        const res = await stack.call(tokens.ada, 'GET', `${base()}/members`);
        expect(res.status).toBe(401);
        expect(res.body.errorCode).toBe('UNAUTHENTICATED');
      } finally {
        stack.clock.set(now);
      }
    });
  });

  describe('authorisation', () => {
    it('a member (no ViewUsers) may not list members: 403 PERMISSION_DENIED', async () => {
      const res = await stack.call(tokens.grace, 'GET', `${base()}/members`);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ errorCode: 'PERMISSION_DENIED' });
      expect(res.body.message).toContain('ViewUsers');
    });

    it('an admin (ViewUsers, not ManageOrganisationUsers) may read but not change members', async () => {
      expect((await stack.call(tokens.lead, 'GET', `${base()}/members`)).status).toBe(200);
      const res = await stack.call(tokens.lead, 'POST', `${base()}/members/${grace.id}/role`, {
        role: 'admin',
      });
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('PERMISSION_DENIED');
    });

    it("another organisation's admin is refused every acme route: 403 FORBIDDEN", async () => {
      const routes: [string, string, unknown?][] = [
        ['GET', `${base()}/members`],
        ['GET', `${base()}/members/${grace.id}`],
        ['POST', `${base()}/members/${grace.id}/role`, { role: 'admin' }],
        ['POST', `${base()}/members/${grace.id}/deactivate`],
        ['POST', `${base()}/members/${grace.id}/reactivate`],
        ['POST', `${base()}/members/${grace.id}/end-sessions`],
        ['POST', `${base()}/members/${grace.id}/unlock`],
      ];
      for (const [method, path, json] of routes) {
        const res = await stack.call(tokens.stranger, method, path, json);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.errorCode).toBe('FORBIDDEN');
      }
    });

    it("an acme id under the caller's own organisation is unknown there: 404", async () => {
      const path = `/console/organisations/${other}/members/${grace.id}`;
      for (const [method, suffix] of [
        ['GET', ''],
        ['POST', '/deactivate'],
        ['POST', '/end-sessions'],
      ] as const) {
        const res = await stack.call(tokens.stranger, method, `${path}${suffix}`);
        expect(res.status).toBe(404);
        expect(res.body.errorCode).toBe('USER_NOT_FOUND');
      }
    });

    it('the provider staff (ViewOrganisations) may open any organisation', async () => {
      const res = await stack.call(tokens.staff, 'GET', `${base()}/members`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(3);
    });
  });

  describe('roles', () => {
    it('an org-admin may not assign a provider-staff role', async () => {
      const res = await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/role`, {
        role: 'super-admin',
      });
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('PERMISSION_DENIED');
    });

    it('changes a role, counts at once (no new token), and records the event', async () => {
      const up = await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/role`, {
        role: 'admin',
      });
      expect(up.status).toBe(200);
      expect(up.body.role).toBe('admin');
      stack.clock.advance(1000);
      // Grace's old token now reads members: authorisation comes from the database, not the token.
      expect((await stack.call(tokens.grace, 'GET', `${base()}/members`)).status).toBe(200);
      const down = await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/role`, {
        role: 'member',
      });
      expect(down.body.role).toBe('member');
      expect((await stack.call(tokens.grace, 'GET', `${base()}/members`)).status).toBe(403);
      const events = await stack.call(
        tokens.ada,
        'GET',
        `${base()}/events?subjectId=${grace.id}&type=member.role_changed`,
      );
      expect(events.body.events.map((e: any) => e.details)).toEqual([
        { from: 'admin', to: 'member' },
        { from: 'member', to: 'admin' },
      ]);
      expect(events.body.events[0]).toMatchObject({
        actorKind: 'person',
        actorId: ada.id,
        subjectId: grace.id,
      });
      expect(events.body.events[0].requestId).toEqual(expect.any(String));
    });

    it('the last org-admin can be neither demoted nor deactivated, not even by themselves', async () => {
      const demote = await stack.call(tokens.ada, 'POST', `${base()}/members/${ada.id}/role`, {
        role: 'admin',
      });
      expect(demote.status).toBe(409);
      expect(demote.body.errorCode).toBe('LAST_ORG_ADMIN');
      const deactivate = await stack.call(tokens.ada, 'POST', `${base()}/members/${ada.id}/deactivate`);
      expect(deactivate.status).toBe(409);
      expect(deactivate.body.errorCode).toBe('LAST_ORG_ADMIN');
    });

    it('two org-admins demoting each other at once: one wins, one org-admin remains', async () => {
      const second = await stack.newUser(acme, 'acme.test', 'org-admin');
      const secondToken = await stack.tokenFor(second.identityId);
      const [a, b] = await Promise.all([
        stack.call(tokens.ada, 'POST', `${base()}/members/${second.id}/role`, { role: 'member' }),
        stack.call(secondToken, 'POST', `${base()}/members/${ada.id}/role`, { role: 'member' }),
      ]);
      const statuses = [a.status, b.status].sort();
      // Whichever ran second either found itself demoted (403) or the other the last org-admin (409).
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      const admins = await stack.db.kysely
        .selectFrom('users' as never)
        .select('id' as never)
        .where('organisation_id' as never, '=', acme as never)
        .where('role' as never, '=', 'org-admin' as never)
        .execute();
      expect(admins).toHaveLength(1);
      // Put ada back as the one org-admin for the tests that follow.
      if ((admins[0] as any).id !== ada.id) {
        await stack.call(secondToken, 'POST', `${base()}/members/${ada.id}/role`, { role: 'org-admin' });
        await stack.call(tokens.ada, 'POST', `${base()}/members/${second.id}/role`, { role: 'member' });
      }
    });
  });

  describe('deactivation', () => {
    it('deactivating ends the identity, its sessions and its grants; the token is refused; reactivating gives the account back', async () => {
      const off = await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/deactivate`);
      expect(off.status).toBe(200);
      expect(off.body.status).toBe('deactivated');
      const identity = await fetch(`${stack.urls.identityAdmin}/admin/identities/${grace.identityId}`);
      expect(((await identity.json()) as any).state).toBe('inactive');
      // The token's grant ended with the deactivation: the token itself is dead (issue 31, item 12).
      const refused = await stack.call(tokens.grace, 'GET', '/console/me');
      expect(refused.status).toBe(401);
      expect(refused.body.errorCode).toBe('UNAUTHENTICATED');
      // A token got any other way is refused from the console's own record.
      const other = await stack.call(await stack.tokenFor(grace.identityId), 'GET', '/console/me');
      expect(other.status).toBe(403);
      expect(other.body.errorCode).toBe('ACCOUNT_INACTIVE');
      stack.clock.advance(1000);
      // Idempotent.
      expect((await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/deactivate`)).status).toBe(
        200,
      );

      stack.clock.advance(1000);
      const on = await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/reactivate`);
      expect(on.body.status).toBe('active');
      const back = await fetch(`${stack.urls.identityAdmin}/admin/identities/${grace.identityId}`);
      expect(((await back.json()) as any).state).toBe('active');
      const events = await stack.call(tokens.ada, 'GET', `${base()}/events?subjectId=${grace.id}`);
      const types = events.body.events.map((e: any) => e.type);
      expect(types.filter((t: string) => t === 'member.deactivated')).toHaveLength(1);
      expect(types[0]).toBe('member.reactivated');
    });

    it('ends all sessions and unlocks through the identity service, each recorded', async () => {
      stack.clock.advance(1000);
      expect(
        (await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/end-sessions`)).status,
      ).toBe(204);
      stack.clock.advance(1000);
      expect((await stack.call(tokens.ada, 'POST', `${base()}/members/${grace.id}/unlock`)).status).toBe(204);
      // The identity service records its side too (account.unlocked, on its real clock): the
      // console's own two come newest first among the member events.
      const events = await stack.call(tokens.ada, 'GET', `${base()}/events?subjectId=${grace.id}&limit=20`);
      const types = events.body.events.map((e: any) => e.type as string);
      expect(types.filter((t: string) => t.startsWith('member.')).slice(0, 2)).toEqual([
        'member.unlocked',
        'member.sessions_ended',
      ]);
    });
  });

  describe('two-factor reset', () => {
    it("removes the member's TOTP through the identity admin API and records it", async () => {
      const person = await stack.newUser(acme, 'acme.test', 'member');
      const now = new Date();
      await stack.db.kysely
        .insertInto('identity_credentials' as never)
        .values({
          id: '44444444-4444-4444-8444-444444444444',
          identity_id: person.identityId,
          type: 'totp',
          config: JSON.stringify({ totp_url: 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP' }),
          version: 0,
          created_at: now,
          updated_at: now,
        } as never)
        .execute();
      const before = await stack.call(tokens.ada, 'GET', `${base()}/members/${person.id}`);
      expect(before.body.twoFactor).toBe(true);
      // The TOTP secret is no business of the console.
      expect(JSON.stringify(before.body)).not.toContain('JBSWY3DPEHPK3PXP');
      stack.clock.advance(1000);
      const reset = await stack.call(tokens.ada, 'POST', `${base()}/members/${person.id}/reset-2fa`);
      expect(reset.status).toBe(204);
      const after = await stack.call(tokens.ada, 'GET', `${base()}/members/${person.id}`);
      expect(after.body.twoFactor).toBe(false);
      expect(after.body.recentEvents[0].type).toBe('member.two_factor_reset');
      // Again, with nothing left to remove: still fine.
      expect((await stack.call(tokens.ada, 'POST', `${base()}/members/${person.id}/reset-2fa`)).status).toBe(
        204,
      );
    });
  });

  describe('bad input answers 400 {errorCode, message}, never 5xx', () => {
    it.each([
      ['GET', () => `/console/organisations/not-a-uuid/members`, undefined],
      ['GET', () => `${base()}/members/not-a-uuid`, undefined],
      ['GET', () => `${base()}/members?page=0`, undefined],
      ['GET', () => `${base()}/members?pageSize=1000`, undefined],
      ['GET', () => `${base()}/members?extra=1`, undefined],
      ['POST', () => `${base()}/members/${grace.id}/role`, { role: 'king' }],
      ['POST', () => `${base()}/members/${grace.id}/role`, {}],
      ['POST', () => `${base()}/members/${grace.id}/role`, { role: 'admin', extra: true }],
      ['GET', () => `${base()}/events?cursor=garbage`, undefined],
      ['GET', () => `${base()}/events?from=yesterday`, undefined],
      ['GET', () => `${base()}/events?type=unknown.kind`, undefined],
      [
        'POST',
        () => `${base()}/invitations`,
        { email: 'x\u0000@acme.test', firstName: 'A', lastName: 'B', role: 'member' },
      ],
      [
        'POST',
        () => `${base()}/invitations`,
        { email: 'new@acme.test', firstName: 'x'.repeat(500), lastName: 'B', role: 'member' },
      ],
    ])('%s %s', async (method, path, json) => {
      const res = await stack.call(tokens.ada, method, path(), json);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
    });

    it('malformed JSON and an oversized body', async () => {
      const malformed = await fetch(`${stack.svc.publicUrl}${base()}/members/${grace.id}/role`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json' },
        body: '{"role":',
      });
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as any).errorCode).toEqual(expect.any(String));
      const big = await fetch(`${stack.svc.publicUrl}${base()}/members/${grace.id}/role`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'x'.repeat(100_000) }),
      });
      expect(big.status).toBe(413);
      expect(((await big.json()) as any).errorCode).toBe('PAYLOAD_TOO_LARGE');
    });
  });
});
