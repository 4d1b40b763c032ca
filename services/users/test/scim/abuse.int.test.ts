import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http } from '../harness.ts';
import { startScimStack, type ScimStack } from './scim-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const RATE_LIMIT = 40;

/** Every refusal under /scim/v2 is SCIM's error schema (RFC 7644 §3.12), never a 500. */
function expectScimError(res: { status: number; body: any }, status: number, scimType?: string) {
  expect(res.status).toBe(status);
  expect(res.body.schemas).toEqual([ERROR]);
  expect(res.body.status).toBe(String(status));
  expect(typeof res.body.detail).toBe('string');
  if (scimType !== undefined) expect(res.body.scimType).toBe(scimType);
}

describe('SCIM abuse: tokens, organisations, inputs and limits', () => {
  let stack: ScimStack;
  let otherOrg = '';
  let otherScim = '';
  let otherAdminToken = '';
  let person: any;

  beforeAll(async () => {
    stack = await startScimStack('abuse.test', {
      env: { SCIM_RATE_LIMIT_PER_TOKEN: String(RATE_LIMIT), SCIM_RATE_WINDOW_SECONDS: '60' },
    });
    otherOrg = await stack.newOrganisation('elsewhere.test');
    const otherAdmin = await stack.newUser(otherOrg, 'elsewhere.test', 'org-admin');
    otherAdminToken = await stack.tokenFor(otherAdmin.identityId);
    otherScim = (await stack.newScimToken(otherOrg, otherAdminToken)).token;
    const created = await stack.scim('POST', '/Users', { schemas: [USER], userName: 'grace@abuse.test' });
    expect(created.status).toBe(201);
    person = created.body;
  }, 60_000);
  // Each test starts a fresh rate-limit window.
  beforeEach(() => stack.clock.freshWindow(60_000));
  afterAll(async () => stack?.close());

  it("cross-organisation: another organisation's token never sees, changes or groups this organisation's people", async () => {
    const as = { token: otherScim };
    expectScimError(await stack.scim('GET', `/Users/${person.id}`, undefined, as), 404);
    expectScimError(
      await stack.scim(
        'PATCH',
        `/Users/${person.id}`,
        {
          Operations: [{ op: 'replace', path: 'active', value: false }],
        },
        as,
      ),
      404,
    );
    expectScimError(
      await stack.scim('PUT', `/Users/${person.id}`, { userName: 'grace@abuse.test' }, as),
      404,
    );
    expectScimError(await stack.scim('DELETE', `/Users/${person.id}`, undefined, as), 404);
    const listed = await stack.scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "grace@abuse.test"')}`,
      undefined,
      as,
    );
    expect(listed.body.totalResults).toBe(0);
    const all = await stack.scim('GET', '/Users', undefined, as);
    expect(all.body.Resources.map((u: any) => u.userName)).not.toContain('grace@abuse.test');
    // Not into its own groups either, nor may it create people in our domain.
    expectScimError(
      await stack.scim('POST', '/Groups', { displayName: 'Steal', members: [{ value: person.id }] }, as),
      400,
      'invalidValue',
    );
    expectScimError(
      await stack.scim('POST', '/Users', { userName: 'mallory@abuse.test' }, as),
      400,
      'invalidValue',
    );
    const ours = await stack.scim('POST', '/Groups', { displayName: 'Ours' });
    expectScimError(await stack.scim('GET', `/Groups/${ours.body.id}`, undefined, as), 404);
    expectScimError(
      await stack.scim(
        'PATCH',
        `/Groups/${ours.body.id}`,
        { Operations: [{ op: 'remove', path: 'members' }] },
        as,
      ),
      404,
    );
    // Unchanged for its own organisation.
    expect((await stack.scim('GET', `/Users/${person.id}`)).body.active).toBe(true);
  });

  it('tokens: missing, unknown, revoked, and cookies alone are 401 with WWW-Authenticate; the token never appears in events', async () => {
    expectScimError(await stack.scim('GET', '/Users', undefined, { token: null }), 401);
    const unknown = await stack.scim('GET', '/Users', undefined, { token: 'scim_not-a-real-token' });
    expectScimError(unknown, 401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const cookie = await fetch(`${stack.svc.publicUrl}/scim/v2/Users`, {
      headers: { cookie: `ory_kratos_session=x; scim=${stack.scimToken}` },
    });
    expect(cookie.status).toBe(401);

    const extra = await stack.newScimToken(stack.organisationId, stack.adminToken, 'To revoke');
    expect((await stack.scim('GET', '/Users', undefined, { token: extra.token })).status).toBe(200);
    const revoked = await stack.call(
      stack.adminToken,
      'DELETE',
      `/console/organisations/${stack.organisationId}/scim/tokens/${extra.id}`,
    );
    expect(revoked.status).toBe(204);
    expectScimError(await stack.scim('GET', '/Users', undefined, { token: extra.token }), 401);

    const listed = await stack.call(
      stack.adminToken,
      'GET',
      `/console/organisations/${stack.organisationId}/scim/tokens`,
    );
    expect(listed.body.tokens.find((t: any) => t.id === stack.scimTokenId).lastUsedAt).not.toBeNull();
    const events = await stack.call(
      stack.adminToken,
      'GET',
      `/console/organisations/${stack.organisationId}/events`,
    );
    expect(JSON.stringify(events.body)).not.toContain(extra.token);
    expect(JSON.stringify(events.body)).not.toContain(stack.scimToken);
  });

  it('malformed input: bad JSON, wrong content type, NUL, bad PATCH, unknown routes: SCIM errors, never a 500', async () => {
    expectScimError(
      await stack.scim('POST', '/Users', undefined, { raw: '{"userName": ' }),
      400,
      'invalidSyntax',
    );
    expectScimError(await stack.scim('POST', '/Users', undefined, { raw: '' }), 400);
    expectScimError(
      await stack.scim('POST', '/Users', undefined, { raw: 'userName=x', contentType: 'text/plain' }),
      415,
    );
    expectScimError(
      await stack.scim('POST', '/Users', undefined, {
        raw: 'userName=x',
        contentType: 'application/x-www-form-urlencoded',
      }),
      415,
    );
    // application/json is accepted as well as application/scim+json.
    const json = await stack.scim(
      'POST',
      '/Users',
      { userName: 'json@abuse.test' },
      { contentType: 'application/json' },
    );
    expect(json.status).toBe(201);
    expectScimError(await stack.scim('POST', '/Users', { userName: 'nul\u0000@abuse.test' }), 400);
    expectScimError(await stack.scim('POST', '/Users', { userName: 'not-an-address' }), 400, 'invalidValue');
    expectScimError(
      await stack.scim('POST', '/Users', { userName: 'x@other-domain.test' }),
      400,
      'invalidValue',
    );
    expectScimError(await stack.scim('POST', '/Users', { userName: 42 }), 400, 'invalidValue');
    expectScimError(await stack.scim('POST', '/Users', [1, 2]), 400, 'invalidValue');
    expectScimError(
      await stack.scim('POST', '/Users', {
        userName: 'long@abuse.test',
        name: { givenName: 'x'.repeat(101) },
      }),
      400,
      'invalidValue',
    );
    expectScimError(await stack.scim('PATCH', `/Users/${person.id}`, { schemas: [] }), 400, 'invalidSyntax');
    expectScimError(
      await stack.scim('PATCH', `/Users/${person.id}`, { Operations: [{ op: 'move', path: 'active' }] }),
      400,
      'invalidSyntax',
    );
    expectScimError(
      await stack.scim('PATCH', `/Users/${person.id}`, {
        Operations: [{ op: 'replace', path: 'active', value: 'maybe' }],
      }),
      400,
      'invalidValue',
    );
    const badPath = await stack.scim('PATCH', `/Users/${person.id}`, {
      Operations: [{ op: 'replace', path: 'emails[type eq', value: 'x' }],
    });
    expectScimError(badPath, 400);
    expectScimError(await stack.scim('GET', '/Users/not-a-uuid'), 404);
    // The router's own refusals under /scim/v2 (a 200-character id) are SCIM errors too.
    const long = await stack.scim('GET', `/Users/${'a'.repeat(200)}`);
    expectScimError(long, 414);
    expect(long.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expectScimError(await stack.scim('GET', '/Nope'), 404);
    expectScimError(await stack.scim('GET', '/Users?count=abc'), 400);
    expectScimError(await stack.scim('GET', `/Users?filter=${encodeURIComponent('x'.repeat(1001))}`), 400);
    // Unknown attributes are ignored, not stored or echoed.
    const extra = await stack.scim('POST', '/Users', {
      userName: 'extra@abuse.test',
      password: 'secret-pw',
      title: 'x',
    });
    expect(extra.status).toBe(201);
    expect(JSON.stringify(extra.body)).not.toContain('secret-pw');
  });

  it('replays: a repeated create is 409 uniqueness, a repeated delete 404, a repeated member add keeps one membership', async () => {
    const body = { schemas: [USER], userName: 'replay@abuse.test', externalId: 'ext-replay' };
    expect((await stack.scim('POST', '/Users', body)).status).toBe(201);
    expectScimError(await stack.scim('POST', '/Users', body), 409, 'uniqueness');
    expectScimError(
      await stack.scim('POST', '/Users', { userName: 'other@abuse.test', externalId: 'ext-replay' }),
      409,
      'uniqueness',
    );
    const group = await stack.scim('POST', '/Groups', { displayName: 'Replayed' });
    const add = { Operations: [{ op: 'add', path: 'members', value: [{ value: person.id }] }] };
    expect((await stack.scim('PATCH', `/Groups/${group.body.id}`, add)).status).toBe(200);
    const again = await stack.scim('PATCH', `/Groups/${group.body.id}`, add);
    expect(again.body.members.map((m: any) => m.value)).toEqual([person.id]);
    // Replayed in parallel (a retrying client): every answer is a success, the membership one.
    const other = await stack.scim('POST', '/Users', { userName: 'parallel@abuse.test' });
    const addOther = { Operations: [{ op: 'add', path: 'members', value: [{ value: other.body.id }] }] };
    const parallel = await Promise.all(
      Array.from({ length: 5 }, () => stack.scim('PATCH', `/Groups/${group.body.id}`, addOther)),
    );
    expect(parallel.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const members = (await stack.scim('GET', `/Groups/${group.body.id}`)).body.members.map(
      (m: any) => m.value,
    );
    expect(members.sort()).toEqual([person.id, other.body.id].sort());
    expect((await stack.scim('DELETE', `/Groups/${group.body.id}`)).status).toBe(204);
    expectScimError(await stack.scim('DELETE', `/Groups/${group.body.id}`), 404);
  });

  it('body limit: 1 MiB is accepted (the public port’s 16 KiB does not apply), more is 413', async () => {
    const big = await stack.scim('POST', '/Users', {
      userName: 'big@abuse.test',
      title: 'x'.repeat(1000 * 1000),
    });
    expect(big.status).toBe(201);
    expectScimError(
      await stack.scim('POST', '/Users', { userName: 'huge@abuse.test', title: 'x'.repeat(1024 * 1024 + 1) }),
      413,
    );
    expectScimError(
      await stack.scim('PATCH', `/Users/${person.id}`, undefined, {
        raw: JSON.stringify({ Operations: [{ op: 'add', path: 'title', value: 'x'.repeat(1024 * 1024) }] }),
      }),
      413,
    );
  });

  it(`rate limit: of 50 parallel requests with one token, ${RATE_LIMIT} pass and the rest get 429 with Retry-After`, async () => {
    const { token } = await stack.newScimToken(stack.organisationId, stack.adminToken, 'Burst');
    const results = await Promise.all(
      Array.from({ length: 50 }, () => stack.scim('GET', '/ServiceProviderConfig', undefined, { token })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(RATE_LIMIT);
    const limited = results.filter((r) => r.status !== 200);
    expect(limited).toHaveLength(50 - RATE_LIMIT);
    for (const r of limited) {
      expectScimError(r, 429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Per token: the organisation's other token is unaffected; the window's end lifts the limit.
    expect((await stack.scim('GET', '/ServiceProviderConfig')).status).toBe(200);
    stack.clock.advance(61_000);
    expect((await stack.scim('GET', '/ServiceProviderConfig', undefined, { token })).status).toBe(200);
  });

  it('JIT bypass: while SCIM is on, SSO sign-in does not create unknown people; existing ones still sign in', async () => {
    const sso = await http(`${stack.svc.adminUrl}/admin/organisations/${otherOrg}/sso`, {
      method: 'PUT',
      json: {
        provider: 'elsewhere',
        issuer: 'https://idp.elsewhere.test',
        clientId: 'c',
        clientSecret: 's',
        jit: true,
      },
    });
    expect(sso.status).toBe(200);
    const refused = await http(`${stack.svc.adminUrl}/admin/sso/providers/elsewhere/members`, {
      method: 'POST',
      json: { email: 'newcomer@elsewhere.test' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      errorCode: 'JIT_DISABLED',
      message: expect.stringMatching(/directory/),
    });
    // A person the directory created is found, not refused.
    const provisioned = await stack.scim(
      'POST',
      '/Users',
      { userName: 'known@elsewhere.test' },
      { token: otherScim },
    );
    expect(provisioned.status).toBe(201);
    const known = await http(`${stack.svc.adminUrl}/admin/sso/providers/elsewhere/members`, {
      method: 'POST',
      json: { email: 'known@elsewhere.test' },
    });
    expect([known.status, (known.body as any).userId]).toEqual([200, provisioned.body.id]);
    // With every SCIM token revoked, JIT creation is back (the provider allows it).
    const tokens = await stack.call(otherAdminToken, 'GET', `/console/organisations/${otherOrg}/scim/tokens`);
    for (const t of tokens.body.tokens) {
      await stack.call(otherAdminToken, 'DELETE', `/console/organisations/${otherOrg}/scim/tokens/${t.id}`);
    }
    const allowed = await http(`${stack.svc.adminUrl}/admin/sso/providers/elsewhere/members`, {
      method: 'POST',
      json: { email: 'newcomer@elsewhere.test' },
    });
    expect(allowed.status).toBe(200);
  });
});
