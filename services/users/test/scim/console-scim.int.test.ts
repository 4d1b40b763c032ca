import { sql } from '@acme/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleStack, type ConsoleStack } from '../console/console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('console API: SCIM tokens and group mapping (issue 26)', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  const tokens: Record<string, string> = {};
  const base = () => `/console/organisations/${acme}/scim`;

  beforeAll(async () => {
    stack = await startConsoleStack({ env: { USERS_PUBLIC_URL: 'https://users.example.test/' } });
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    const ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    const lead = await stack.newUser(acme, 'acme.test', 'admin');
    const stranger = await stack.newUser(other, 'other.test', 'org-admin');
    for (const [name, person] of Object.entries({ ada, lead, stranger })) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
    // A scope group the organisation knows (its people hold it).
    await sql`update users set scope_groups = '["research","quant"]' where email = ${ada.email}`.execute(
      stack.db.kysely,
    );
  }, 60_000);
  afterAll(async () => stack?.close());

  it('creates a token shown once, lists it without the secret, revokes it; events never hold the token', async () => {
    const created = await stack.call(tokens.ada, 'POST', `${base()}/tokens`, { name: 'Entra ID' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Entra ID' });
    expect(created.body.token).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const listed = await stack.call(tokens.ada, 'GET', `${base()}/tokens`);
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toEqual([
      {
        id: created.body.id,
        name: 'Entra ID',
        createdAt: created.body.createdAt,
        lastUsedAt: null,
        createdBy: expect.stringMatching(/@acme\.test$/),
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);

    const settings = await stack.call(tokens.ada, 'GET', `${base()}/settings`);
    expect(settings.body).toEqual({
      enabled: true,
      baseUrl: 'https://users.example.test/scim/v2',
      groupMappings: [],
      scopeGroups: ['quant', 'research'],
    });

    // While the directory provisions the organisation, self sign-up can not be opened (issue 25's predicate).
    const signUp = await stack.call(tokens.ada, 'PUT', `/console/organisations/${acme}/self-signup`, {
      enabled: true,
    });
    expect(signUp.status).toBe(403);
    expect(signUp.body).toMatchObject({ errorCode: 'SELF_SIGNUP_NOT_ALLOWED', reason: 'scim' });
    const signUpView = await stack.call(tokens.ada, 'GET', `/console/organisations/${acme}/self-signup`);
    expect(signUpView.body).toMatchObject({ enabled: false, blockedBy: 'scim' });

    // Another organisation's admin cannot revoke it.
    const foreign = await stack.call(
      tokens.stranger,
      'DELETE',
      `/console/organisations/${other}/scim/tokens/${created.body.id}`,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.errorCode).toBe('SCIM_TOKEN_NOT_FOUND');

    const revoked = await stack.call(tokens.ada, 'DELETE', `${base()}/tokens/${created.body.id}`);
    expect(revoked.status).toBe(204);
    const again = await stack.call(tokens.ada, 'DELETE', `${base()}/tokens/${created.body.id}`);
    expect(again.status).toBe(404);
    expect((await stack.call(tokens.ada, 'GET', `${base()}/tokens`)).body.tokens).toEqual([]);
    expect((await stack.call(tokens.ada, 'GET', `${base()}/settings`)).body.enabled).toBe(false);
    const reopened = await stack.call(tokens.ada, 'GET', `/console/organisations/${acme}/self-signup`);
    expect(reopened.body.blockedBy).toBeNull();

    const events = await stack.call(tokens.ada, 'GET', `/console/organisations/${acme}/events`);
    const scimEvents = events.body.events.filter((e: any) => e.type.startsWith('scim.'));
    expect(scimEvents.map((e: any) => e.type).sort()).toEqual(['scim.token_created', 'scim.token_revoked']);
    expect(scimEvents[0].details).toMatchObject({ tokenId: created.body.id, name: 'Entra ID' });
    expect(JSON.stringify(events.body)).not.toContain(created.body.token);
    const stored = await sql<{ token_hash: string }>`select token_hash from scim_tokens`.execute(
      stack.db.kysely,
    );
    expect(stored.rows.map((r) => r.token_hash)).not.toContain(created.body.token);
  });

  it('limit: of 8 parallel creations exactly 5 live tokens are made, the rest LIMIT_REACHED (409)', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        stack.call(tokens.ada, 'POST', `${base()}/tokens`, { name: `Parallel ${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.errorCode])).toEqual(
      Array.from({ length: 3 }, () => [409, 'LIMIT_REACHED']),
    );
    const listed = await stack.call(tokens.ada, 'GET', `${base()}/tokens`);
    expect(listed.body.tokens).toHaveLength(5);
    for (const t of listed.body.tokens) await stack.call(tokens.ada, 'DELETE', `${base()}/tokens/${t.id}`);
  });

  it('needs ManageOrganisationUsers and the own organisation', async () => {
    const lead = await stack.call(tokens.lead, 'GET', `${base()}/tokens`);
    expect([lead.status, lead.body.errorCode]).toEqual([403, 'PERMISSION_DENIED']);
    const stranger = await stack.call(tokens.stranger, 'POST', `${base()}/tokens`, { name: 'x' });
    expect([stranger.status, stranger.body.errorCode]).toEqual([403, 'FORBIDDEN']);
    const anonymous = await stack.call(undefined, 'GET', `${base()}/settings`);
    expect(anonymous.status).toBe(401);
  });

  it('saves the group mapping; refuses unknown scope groups, roles above org-admin, duplicates and over 100 rows', async () => {
    const mappings = [
      { group: 'Quants', role: 'user', scopeGroups: ['quant'] },
      { group: 'IT admins', role: 'org-admin', scopeGroups: [] },
      { group: 'Research', role: null, scopeGroups: ['research', 'research'] },
    ];
    const saved = await stack.call(tokens.ada, 'PUT', `${base()}/settings`, { groupMappings: mappings });
    expect(saved.status).toBe(200);
    expect(saved.body.groupMappings).toEqual([
      mappings[0],
      mappings[1],
      { group: 'Research', role: null, scopeGroups: ['research'] },
    ]);
    expect((await stack.call(tokens.ada, 'GET', `${base()}/settings`)).body.groupMappings).toHaveLength(3);

    const bad = async (groupMappings: unknown) => {
      const res = await stack.call(tokens.ada, 'PUT', `${base()}/settings`, { groupMappings });
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('INVALID_REQUEST');
      return res.body.message as string;
    };
    expect(await bad([{ group: 'X', role: null, scopeGroups: ['nope'] }])).toContain(
      'groupMappings.0.scopeGroups',
    );
    await bad([{ group: 'X', role: 'super-admin', scopeGroups: [] }]);
    await bad([{ group: 'X', role: 'admin', scopeGroups: [] }]);
    expect(
      await bad([
        { group: 'X', role: null, scopeGroups: [] },
        { group: 'X', role: 'user', scopeGroups: [] },
      ]),
    ).toContain('names a group twice');
    await bad(Array.from({ length: 101 }, (_, i) => ({ group: `G${i}`, role: null, scopeGroups: [] })));
    // The saved mapping is unchanged by the refusals.
    expect((await stack.call(tokens.ada, 'GET', `${base()}/settings`)).body.groupMappings).toHaveLength(3);
  });

  it('lists the scope groups the mapping may name: those of its people and its live API clients', async () => {
    const listed = async () => (await stack.call(tokens.ada, 'GET', `${base()}/settings`)).body.scopeGroups;
    expect(await listed()).toEqual(['quant', 'research']);
    // Another organisation's scope groups never show.
    await sql`update users set scope_groups = '["secret-ops"]' where organisation_id = ${other}`.execute(
      stack.db.kysely,
    );
    // A live API client's scope group counts; a revoked client's does not.
    const client = (id: string, group: string, revoked: Date | null) =>
      sql`insert into api_clients (id, organisation_id, name, scope_groups, created_at, revoked_at)
        values (${id}, ${acme}, ${id}, ${JSON.stringify([group])}::jsonb, now(), ${revoked})`.execute(
        stack.db.kysely,
      );
    await client('live-export', 'exports', null);
    await client('old-export', 'archive', new Date());
    expect(await listed()).toEqual(['exports', 'quant', 'research']);
    expect(await listed()).not.toContain('secret-ops');
  });
});
