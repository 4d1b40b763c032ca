import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('admin API: users', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;
  let orgId: string;
  let otherOrgId: string;

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    svc = await startTestService({
      env: { IDENTITY_ADMIN_URL: identity.adminUrl, IDENTITY_PUBLIC_URL: identity.publicUrl },
    });
    const org = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Acme', domains: ['acme.test'], products: ['Platform', 'MAGIC'] },
    });
    orgId = (org.body as any).id;
    const other = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Initech', domains: ['initech.test'], products: ['Platform'] },
    });
    otherOrgId = (other.body as any).id;
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
  });
  beforeEach(() => {
    identity.requests.length = 0;
  });

  const createUser = (json: unknown) => http(`${svc.adminUrl}/admin/users`, { method: 'POST', json });
  const userCount = async () =>
    (await sql<{ c: number }>`select count(*)::int as c from users`.execute(svc.db.kysely)).rows[0]!.c;

  it('creates the user and their identity, in Kratos shape, and links them', async () => {
    const res = await createUser({
      organisationId: orgId,
      email: ' Ada@ACME.test ',
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'org-admin',
      password: 'Research-Demo-2026!',
      scopeGroups: ['research', 'research'],
    });
    expect(res.status).toBe(201);
    const user = res.body as any;
    expect(user).toMatchObject({
      organisationId: orgId,
      email: 'ada@acme.test',
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'org-admin',
      scopeGroups: ['research'],
      createdAt: '2026-03-01T09:00:00.000Z',
    });
    expect(user.permissions).toContain('ManageOrganisationUsers');
    const linked = await identity.admin.listIdentities({ credentialsIdentifier: 'ada@acme.test' });
    expect(linked.map((i) => i.id)).toEqual([user.identityId]);
    expect((await identity.identity(user.identityId)).traits.userServiceID).toBe(user.id);

    expect(identity.requests).toHaveLength(1);
    const call = identity.requests[0]!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/admin/identities');
    expect(call.body).toEqual({
      schema_id: 'default',
      traits: {
        userServiceID: user.id,
        email: 'ada@acme.test',
        name: { first: 'Ada', last: 'Lovelace' },
        onboarding: {
          isGitUser: false,
          mfaSetupDeadline: '2026-03-15T09:00:00.000Z',
          gitProviderConnected: false,
          tosAccepted: true,
        },
      },
      credentials: { password: { config: { password: 'Research-Demo-2026!' } } },
      verifiable_addresses: [{ value: 'ada@acme.test', via: 'email', verified: true, status: 'completed' }],
    });

    const got = await http(`${svc.adminUrl}/admin/users/${user.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(user);
  });

  it('creates a user without a password: no credentials, terms not yet accepted', async () => {
    const res = await createUser({
      organisationId: orgId,
      email: 'grace@acme.test',
      firstName: 'Grace',
      lastName: 'Hopper',
      role: 'member',
    });
    expect(res.status).toBe(201);
    expect((res.body as any).scopeGroups).toEqual([]);
    const body = identity.requests[0]!.body as any;
    expect(body.credentials).toBeUndefined();
    expect(body.traits.onboarding.tosAccepted).toBe(false);
  });

  it('marks a source-code-host user in the identity’s onboarding traits', async () => {
    const res = await createUser({
      organisationId: orgId,
      email: 'linus.git@acme.test',
      firstName: 'Linus',
      lastName: 'Git',
      role: 'member',
      isGitUser: true,
    });
    expect(res.status).toBe(201);
    expect((identity.requests[0]!.body as any).traits.onboarding.isGitUser).toBe(true);
  });

  it('answers 409 USER_EXISTS for an existing email, whatever its case, without calling the identity service', async () => {
    const res = await createUser({
      organisationId: orgId,
      email: 'GRACE@acme.test',
      firstName: 'G',
      lastName: 'H',
      role: 'member',
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorCode: 'USER_EXISTS', message: expect.any(String) });
    expect(identity.requests).toHaveLength(0);
  });

  it('refuses an email whose domain is not the organisation’s with 400 EMAIL_DOMAIN_MISMATCH', async () => {
    const res = await createUser({
      organisationId: otherOrgId,
      email: 'eve@acme.test',
      firstName: 'Eve',
      lastName: 'X',
      role: 'member',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'EMAIL_DOMAIN_MISMATCH', message: expect.any(String) });
    const sub = await createUser({
      organisationId: orgId,
      email: 'eve@evil.acme.test',
      firstName: 'Eve',
      lastName: 'X',
      role: 'member',
    });
    expect(sub.status).toBe(400);
    expect(identity.requests).toHaveLength(0);
  });

  it('answers 404 ORGANISATION_NOT_FOUND for an unknown organisation', async () => {
    const res = await createUser({
      organisationId: '00000000-0000-4000-8000-000000000000',
      email: 'x@acme.test',
      firstName: 'X',
      lastName: 'Y',
      role: 'member',
    });
    expect(res.status).toBe(404);
    expect((res.body as any).errorCode).toBe('ORGANISATION_NOT_FOUND');
  });

  describe('when the identity service fails, no user row is left behind', () => {
    // The real service does not fail on its own: the proxy answers `/admin/identities` instead.
    beforeEach(() => () => identity.answers.clear());

    const newcomer = {
      firstName: 'Linus',
      lastName: 'T',
      role: 'member',
      password: 'Research-Demo-2026!',
    };

    it.each([
      [500, { error: { code: 500, message: 'boom' } }, 502, 'UPSTREAM_ERROR'],
      [503, undefined, 502, 'UPSTREAM_ERROR'],
      [409, { error: { code: 409, message: 'conflict' } }, 409, 'USER_EXISTS'],
      [
        400,
        { error: { code: 400, message: 'bad', reason: 'the password is too weak' } },
        400,
        'IDENTITY_REJECTED',
      ],
    ])('identity answers %s → %s', async (upstreamStatus, upstreamBody, status, errorCode) => {
      identity.answers.set('/admin/identities', { status: upstreamStatus, body: upstreamBody });
      const before = await userCount();
      const res = await createUser({
        ...newcomer,
        organisationId: orgId,
        email: `linus${upstreamStatus}@acme.test`,
      });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ errorCode, message: expect.any(String) });
      expect(await userCount()).toBe(before);
    });

    it('removes an identity that was created although the identity service then answered 500', async () => {
      // The service creates the identity; the proxy then answers the creation with a 500.
      identity.answers.set('/admin/identities', async (req, forward) => {
        const answer = await forward();
        return req.method === 'POST' ? { status: 500, body: { error: { code: 500 } } } : answer;
      });
      const before = (await identity.admin.listIdentities()).length;
      const res = await createUser({ ...newcomer, organisationId: orgId, email: 'half@acme.test' });
      expect(res.status).toBe(502);
      expect(await identity.admin.listIdentities()).toHaveLength(before);
      expect(identity.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'DELETE']);
    });

    it('removes the identity of a user without a password that the identity service made before answering 502', async () => {
      identity.answers.set('/admin/identities', async (req, forward) => {
        const answer = await forward();
        return req.method === 'POST' ? { status: 502, body: { error: { code: 502 } } } : answer;
      });
      const before = (await identity.admin.listIdentities()).length;
      const { password: _password, ...noPassword } = newcomer;
      const res = await createUser({ ...noPassword, organisationId: orgId, email: 'nopass@acme.test' });
      expect(res.status).toBe(502);
      expect(await identity.admin.listIdentities()).toHaveLength(before);
      expect(identity.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'DELETE']);
      identity.answers.delete('/admin/identities');
      const retry = await createUser({ ...noPassword, organisationId: orgId, email: 'nopass@acme.test' });
      expect(retry.status).toBe(201);
    });

    it('passes on the identity service’s reason for refusing', async () => {
      identity.answers.set('/admin/identities', {
        status: 400,
        body: { error: { code: 400, reason: 'password too short' } },
      });
      const res = await createUser({ ...newcomer, organisationId: orgId, email: 'linus@acme.test' });
      expect((res.body as any).message).toContain('password too short');
    });

    it('answers 502 for a non-JSON answer', async () => {
      identity.answers.set('/admin/identities', { status: 201, text: '<html>proxy</html>' });
      const before = await userCount();
      const res = await createUser({ ...newcomer, organisationId: orgId, email: 'linus.html@acme.test' });
      expect(res.status).toBe(502);
      expect(await userCount()).toBe(before);
    });

    it('answers 502 when the identity service is unreachable, and the email stays free', async () => {
      const svc2 = await startTestService({ db: svc.db, env: { IDENTITY_ADMIN_URL: 'http://127.0.0.1:9' } });
      try {
        const res = await http(`${svc2.adminUrl}/admin/users`, {
          method: 'POST',
          json: { ...newcomer, organisationId: orgId, email: 'linus.retry@acme.test' },
        });
        expect(res.status).toBe(502);
        expect(res.body).toEqual({ errorCode: 'UPSTREAM_ERROR', message: expect.any(String) });
      } finally {
        await svc2.close();
      }
      const retry = await createUser({ ...newcomer, organisationId: orgId, email: 'linus.retry@acme.test' });
      expect(retry.status).toBe(201);
    });
  });

  describe('an unlinked row left by a creation that died half-way', () => {
    const orphanRow = async (email: string, createdAt: Date) => {
      const id = crypto.randomUUID();
      await sql`insert into users (id, organisation_id, email, first_name, last_name, role, created_at)
        values (${id}, ${orgId}, ${email}, 'O', 'R', 'member', ${createdAt})`.execute(svc.db.kysely);
      return id;
    };
    const body = (email: string) => ({
      organisationId: orgId,
      email,
      firstName: 'New',
      lastName: 'Try',
      role: 'member',
    });

    it('still blocks the email while the creation may be in flight', async () => {
      await orphanRow('inflight@acme.test', new Date(svc.clock.now().getTime() - 5_000));
      const res = await createUser(body('inflight@acme.test'));
      expect(res.status).toBe(409);
      expect((res.body as any).errorCode).toBe('USER_EXISTS');
    });

    it('is removed and the creation proceeds when no identity was created for it', async () => {
      const orphan = await orphanRow('orphan@acme.test', new Date(svc.clock.now().getTime() - 120_000));
      const res = await createUser(body('orphan@acme.test'));
      expect(res.status).toBe(201);
      expect((res.body as any).id).not.toBe(orphan);
      expect((res.body as any).identityId).toEqual(expect.any(String));
      expect((await http(`${svc.adminUrl}/admin/users/${orphan}`)).status).toBe(404);
    });

    it('is linked to the identity created for it, and the email then counts as taken', async () => {
      const orphan = await orphanRow('linked@acme.test', new Date(svc.clock.now().getTime() - 120_000));
      // The identity the dead creation made (with a password: the lookup is by login identifier).
      const made = await identity.admin.createIdentity({
        schema_id: 'default',
        traits: { email: 'linked@acme.test', userServiceID: orphan, name: { first: 'O', last: 'R' } },
        credentials: { password: { config: { password: 'Research-Demo-2026!' } } },
      });
      const res = await createUser(body('linked@acme.test'));
      expect(res.status).toBe(409);
      expect((res.body as any).errorCode).toBe('USER_EXISTS');
      const repaired = await http(`${svc.adminUrl}/admin/users/${orphan}`);
      expect((repaired.body as any).identityId).toBe(made.id);
      expect(identity.requests.map((r) => r.method)).toEqual(['GET']);
    });
  });

  it('lists users, optionally by organisation', async () => {
    const all = await http(`${svc.adminUrl}/admin/users`);
    expect(all.status).toBe(200);
    const emails = (all.body as any).users.map((u: any) => u.email);
    expect(emails).toEqual(expect.arrayContaining(['ada@acme.test', 'grace@acme.test']));

    const none = await http(`${svc.adminUrl}/admin/users?organisationId=${otherOrgId}`);
    expect(none.body).toEqual({ users: [] });

    const acme = await http(`${svc.adminUrl}/admin/users?organisationId=${orgId}`);
    expect((acme.body as any).users.every((u: any) => u.organisationId === orgId)).toBe(true);
  });

  it.each([
    ['missing fields', { organisationId: '00000000-0000-4000-8000-000000000000' }],
    ['a malformed email', { email: 'not-an-email' }],
    ['an unknown role', { role: 'owner' }],
    ['a malformed organisation id', { organisationId: 'acme' }],
    ['scope groups of the wrong type', { scopeGroups: 'research' }],
    ['an empty password', { password: '' }],
    ['an unknown field', { isAdmin: true }],
  ])('answers 400 INVALID_REQUEST for %s', async (_label, patch) => {
    const res = await createUser({
      organisationId: orgId,
      email: 'new@acme.test',
      firstName: 'N',
      lastName: 'U',
      role: 'member',
      ...patch,
      ...(_label === 'missing fields' ? { email: undefined, firstName: undefined } : {}),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
  });

  it('answers 400 for malformed JSON and 415 for a form body', async () => {
    const bad = await http(`${svc.adminUrl}/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(bad.status).toBe(400);
    expect((bad.body as any).errorCode).toBe('INVALID_REQUEST');
    const form = await http(`${svc.adminUrl}/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a@acme.test',
    });
    expect(form.status).toBe(415);
  });

  it('answers 400 for a malformed organisation filter and 404 USER_NOT_FOUND for unknown ids', async () => {
    const filter = await http(`${svc.adminUrl}/admin/users?organisationId=acme`);
    expect(filter.status).toBe(400);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await http(`${svc.adminUrl}/admin/users/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errorCode: 'USER_NOT_FOUND', message: expect.any(String) });
    }
  });
});
