import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('admin API: organisations', () => {
  let svc: TestUsersService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  const create = (json: unknown) => http(`${svc.adminUrl}/admin/organisations`, { method: 'POST', json });

  it('creates an organisation with lower-cased, de-duplicated domains and answers it with its id', async () => {
    const res = await create({
      name: 'Acme',
      domains: ['Acme.TEST', 'acme.test', 'labs.acme.test'],
      products: ['Platform', 'MAGIC'],
    });
    expect(res.status).toBe(201);
    const org = res.body as any;
    expect(org).toMatchObject({
      name: 'Acme',
      domains: ['acme.test', 'labs.acme.test'],
      products: ['Platform', 'MAGIC'],
      subscriptionStatus: 'subscribed',
      sso: null,
      m365: false,
      createdAt: '2026-03-01T09:00:00.000Z',
    });
    expect(org.id).toMatch(/^[0-9a-f-]{36}$/);

    const got = await http(`${svc.adminUrl}/admin/organisations/${org.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(org);
  });

  it('stores SSO configuration, the m365 flag and the subscription status', async () => {
    const res = await create({
      name: 'Globex',
      domains: ['globex.test'],
      products: ['MAGIC'],
      subscriptionStatus: 'not_subscribed',
      sso: { provider: 'globex-okta' },
      m365: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      subscriptionStatus: 'not_subscribed',
      sso: { provider: 'globex-okta' },
      m365: true,
    });
  });

  it('lists organisations with their domains', async () => {
    const res = await http(`${svc.adminUrl}/admin/organisations`);
    expect(res.status).toBe(200);
    const names = (res.body as any).organisations.map((o: any) => [o.name, o.domains]);
    expect(names).toEqual([
      ['Acme', ['acme.test', 'labs.acme.test']],
      ['Globex', ['globex.test']],
    ]);
  });

  it('refuses a domain that already belongs to an organisation with 409 DOMAIN_TAKEN and writes nothing', async () => {
    const res = await create({ name: 'Impostor', domains: ['new.test', 'ACME.test'], products: [] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorCode: 'DOMAIN_TAKEN', message: expect.any(String) });
    const list = await http(`${svc.adminUrl}/admin/organisations`);
    expect((list.body as any).organisations.map((o: any) => o.name)).not.toContain('Impostor');
  });

  it.each([
    ['missing name', { domains: ['x.test'], products: [] }],
    ['empty domains', { name: 'X', domains: [], products: [] }],
    ['a domain that is not a domain', { name: 'X', domains: ['not a domain'], products: [] }],
    ['an email instead of a domain', { name: 'X', domains: ['a@x.test'], products: [] }],
    [
      'an unknown subscription status',
      { name: 'X', domains: ['x.test'], products: [], subscriptionStatus: 'maybe' },
    ],
    ['a wrong type', { name: 42, domains: ['x.test'], products: [] }],
    ['an unknown field', { name: 'X', domains: ['x.test'], products: [], colour: 'red' }],
    ['a JSON array', [1, 2]],
    ['JSON null', null],
  ])('answers 400 INVALID_REQUEST for %s', async (_label, json) => {
    const res = await create(json);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": "X",',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'INVALID_REQUEST',
      message: 'The request body is not valid JSON.',
    });
  });

  it('answers 400 for an empty JSON body', async () => {
    const res = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'answers 415 UNSUPPORTED_MEDIA_TYPE for %s',
    async (type) => {
      const res = await http(`${svc.adminUrl}/admin/organisations`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: 'name=X',
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ errorCode: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) });
    },
  );

  it('answers 413 PAYLOAD_TOO_LARGE for a body over the limit', async () => {
    const res = await create({ name: 'X', domains: ['x.test'], products: ['a'.repeat(70 * 1024)] });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ errorCode: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1'; drop table organisations;--"])(
    'answers 404 ORGANISATION_NOT_FOUND for the unknown id %s',
    async (id) => {
      const res = await http(`${svc.adminUrl}/admin/organisations/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errorCode: 'ORGANISATION_NOT_FOUND', message: expect.any(String) });
    },
  );

  it('answers 404 NOT_FOUND for unknown routes and methods', async () => {
    for (const [method, path] of [
      ['GET', '/admin/nothing'],
      ['DELETE', '/admin/organisations'],
    ] as const) {
      const res = await http(`${svc.adminUrl}${path}`, { method });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errorCode: 'NOT_FOUND', message: expect.any(String) });
    }
  });

  it('does not serve the admin API on the public port', async () => {
    const res = await http(`${svc.publicUrl}/admin/organisations`);
    expect(res.status).toBe(404);
  });
});
