import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimStack, type ScimStack } from './scim-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Conformance run against RFC 7644's own examples (section numbers in each test name): the
 * requests are the RFC's, with `userName` made an address of the organisation's domain (this
 * server's userName is the work email) and ids the server's.
 */
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM 2.0 conformance (RFC 7644 examples)', () => {
  let stack: ScimStack;
  let bjensen: any;
  let group: any;

  beforeAll(async () => {
    stack = await startScimStack('example.com');
  }, 60_000);
  afterAll(async () => stack?.close());

  it('§3.3 creates a User: 201, Location, meta, the representation', async () => {
    const res = await stack.scim('POST', '/Users', {
      schemas: [USER],
      userName: 'bjensen@example.com',
      externalId: 'bjensen',
      name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    bjensen = res.body;
    expect(bjensen).toMatchObject({
      schemas: [USER],
      userName: 'bjensen@example.com',
      externalId: 'bjensen',
      name: { familyName: 'Jensen', givenName: 'Barbara' },
      active: true,
      emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
      meta: { resourceType: 'User' },
    });
    expect(res.headers.get('location')).toBe(bjensen.meta.location);
    expect(bjensen.meta.location).toMatch(new RegExp(`/scim/v2/Users/${bjensen.id}$`));
    expect(Date.parse(bjensen.meta.created)).not.toBeNaN();
  });

  it('§3.3 a second User with the same userName is 409 uniqueness', async () => {
    const res = await stack.scim('POST', '/Users', { schemas: [USER], userName: 'BJensen@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      schemas: [ERROR],
      status: '409',
      scimType: 'uniqueness',
      detail: expect.any(String),
    });
  });

  it('§3.4.1 retrieves a User by id', async () => {
    const res = await stack.scim('GET', `/Users/${bjensen.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(bjensen);
  });

  it('§3.4.2 filters: userName eq (case-insensitive), externalId eq, emails[type eq "work"].value eq', async () => {
    for (const filter of [
      'userName eq "BJENSEN@example.com"',
      'externalId eq "bjensen"',
      'emails[type eq "work"].value eq "bjensen@example.com"',
    ]) {
      const res = await stack.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(res.status, filter).toBe(200);
      expect(res.body).toMatchObject({ schemas: [LIST], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
      expect(res.body.Resources.map((r: any) => r.id)).toEqual([bjensen.id]);
    }
    const none = await stack.scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`,
    );
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
  });

  it('§3.4.2.2 an unsupported or malformed filter is 400 invalidFilter', async () => {
    for (const filter of ['userName sw "b"', 'name.familyName eq "Jensen"', 'userName eq', 'title pr']) {
      const res = await stack.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(res.status, filter).toBe(400);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
    }
  });

  it('§3.4.2.4 pages with startIndex and count; count is capped at 100', async () => {
    for (const n of [1, 2, 3]) {
      const res = await stack.scim('POST', '/Users', { schemas: [USER], userName: `paged${n}@example.com` });
      expect(res.status).toBe(201);
    }
    // The org-admin, bjensen and three more.
    const first = await stack.scim('GET', '/Users?startIndex=1&count=2');
    expect(first.body).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 2 });
    const last = await stack.scim('GET', '/Users?startIndex=5&count=2');
    expect(last.body).toMatchObject({ totalResults: 5, startIndex: 5, itemsPerPage: 1 });
    const all = await stack.scim('GET', '/Users?startIndex=0&count=1000');
    expect(all.body).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 5 });
    const ids = [
      ...first.body.Resources,
      ...(await stack.scim('GET', '/Users?startIndex=3&count=2')).body.Resources,
      ...last.body.Resources,
    ].map((r: any) => r.id);
    expect(new Set(ids).size).toBe(5);
    const zero = await stack.scim('GET', '/Users?count=0');
    expect(zero.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
  });

  it('§3.5.1 replaces a User with PUT', async () => {
    const res = await stack.scim('PUT', `/Users/${bjensen.id}`, {
      schemas: [USER],
      id: bjensen.id,
      userName: 'bjensen@example.com',
      externalId: 'bjensen',
      name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Babs' },
      active: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toMatchObject({ givenName: 'Babs', familyName: 'Jensen' });
    const changedName = await stack.scim('PUT', `/Users/${bjensen.id}`, {
      schemas: [USER],
      userName: 'barbara@example.com',
    });
    expect(changedName.status).toBe(400);
    expect(changedName.body.scimType).toBe('mutability');
  });

  it('§3.5.2 modifies a User with PATCH (replace without path, the RFC example)', async () => {
    const res = await stack.scim('PATCH', `/Users/${bjensen.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { name: { givenName: 'Barbara' }, nickName: 'Babs' } }],
    });
    expect(res.status).toBe(200);
    expect(res.body.name.givenName).toBe('Barbara');
  });

  it('§3.3 creates a Group with a member (the RFC "Tour Guides" example)', async () => {
    const res = await stack.scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Tour Guides',
      members: [{ value: bjensen.id, display: 'Babs Jensen' }],
    });
    expect(res.status).toBe(201);
    group = res.body;
    expect(group).toMatchObject({
      schemas: [GROUP],
      displayName: 'Tour Guides',
      members: [{ value: bjensen.id, display: 'bjensen@example.com' }],
      meta: { resourceType: 'Group' },
    });
    expect(res.headers.get('location')).toBe(group.meta.location);
    const user = await stack.scim('GET', `/Users/${bjensen.id}`);
    expect(user.body.groups).toEqual([
      { value: group.id, display: 'Tour Guides', $ref: group.meta.location },
    ]);
    const dup = await stack.scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Tour Guides' });
    expect([dup.status, dup.body.scimType]).toEqual([409, 'uniqueness']);
  });

  it('§3.4.2 filters Groups by displayName; excludedAttributes=members leaves members out', async () => {
    const res = await stack.scim(
      'GET',
      `/Groups?filter=${encodeURIComponent('displayName eq "Tour Guides"')}&excludedAttributes=members`,
    );
    expect(res.body).toMatchObject({ totalResults: 1 });
    expect(res.body.Resources[0].id).toBe(group.id);
    expect(res.body.Resources[0].members).toBeUndefined();
  });

  it('§3.5.2.1–3 PATCH Group members: add, remove by filter, remove all, replace', async () => {
    const others = (await stack.scim('GET', '/Users?count=100')).body.Resources.filter((u: any) =>
      u.userName.startsWith('paged'),
    );
    const add = await stack.scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ display: 'Paged', value: others[0].id }] }],
    });
    expect(add.status).toBe(200);
    expect(add.body.members.map((m: any) => m.value).sort()).toEqual([bjensen.id, others[0].id].sort());

    const remove = await stack.scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${bjensen.id}"]` }],
    });
    expect(remove.body.members.map((m: any) => m.value)).toEqual([others[0].id]);

    const replace = await stack.scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'replace', path: 'members', value: [{ value: others[1].id }, { value: others[2].id }] },
      ],
    });
    expect(replace.body.members.map((m: any) => m.value).sort()).toEqual([others[1].id, others[2].id].sort());

    const removeAll = await stack.scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: 'members' }],
    });
    expect(removeAll.status).toBe(200);
    expect(removeAll.body.members ?? []).toEqual([]);
  });

  it('§3.5.1 replaces a Group with PUT (rename and members)', async () => {
    const res = await stack.scim('PUT', `/Groups/${group.id}`, {
      schemas: [GROUP],
      displayName: 'Tour Leads',
      members: [{ value: bjensen.id }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Tour Leads', members: [{ value: bjensen.id }] });
  });

  it('§3.6 deletes a Group and a User: 204, then 404 in the error schema (§3.12)', async () => {
    expect((await stack.scim('DELETE', `/Groups/${group.id}`)).status).toBe(204);
    const gone = await stack.scim('GET', `/Groups/${group.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ schemas: [ERROR], status: '404', detail: expect.any(String) });

    expect((await stack.scim('DELETE', `/Users/${bjensen.id}`)).status).toBe(204);
    const user = await stack.scim('GET', `/Users/${bjensen.id}`);
    expect(user.status).toBe(404);
    expect(user.body.schemas).toEqual([ERROR]);
    expect((await stack.scim('DELETE', `/Users/${bjensen.id}`)).status).toBe(404);
  });

  it('§4 discovery: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const config = await stack.scim('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 100 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const types = await stack.scim('GET', '/ResourceTypes');
    expect(types.body.Resources.map((r: any) => [r.id, r.endpoint, r.schema])).toEqual([
      ['User', '/Users', USER],
      ['Group', '/Groups', GROUP],
    ]);
    expect((await stack.scim('GET', '/ResourceTypes/User')).body.schema).toBe(USER);
    const schemas = await stack.scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((s: any) => s.id)).toEqual([USER, GROUP]);
    const user = await stack.scim('GET', `/Schemas/${USER}`);
    expect(user.body.attributes.map((a: any) => a.name)).toContain('userName');
    expect((await stack.scim('GET', '/Schemas/urn:nope')).status).toBe(404);
  });
});
