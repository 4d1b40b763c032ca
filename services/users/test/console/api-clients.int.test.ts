import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('console API: API clients and the subscription', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  let ada: { id: string; identityId: string; email: string };
  let grace: { id: string; identityId: string };
  let lead: { id: string; identityId: string };
  let stranger: { id: string; identityId: string };
  const tokens: Record<string, string> = {};
  const base = () => `/console/organisations/${acme}`;

  async function clientCredentials(id: string, secret: string) {
    const res = await fetch(`${stack.urls.issuer}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    lead = await stack.newUser(acme, 'acme.test', 'admin');
    grace = await stack.newUser(acme, 'acme.test', 'member');
    stranger = await stack.newUser(other, 'other.test', 'org-admin');
    const patched = await http(`${stack.svc.adminUrl}/admin/users/${ada.id}`, {
      method: 'PATCH',
      json: { scopeGroups: ['research', 'quant'] },
    });
    expect(patched.status).toBe(200);
    for (const [name, person] of Object.entries({ ada, lead, grace, stranger })) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
  }, 60_000);
  afterAll(async () => stack?.close());

  const everyRoute = (): [string, string, unknown?][] => [
    ['GET', `${base()}/api-clients`],
    ['POST', `${base()}/api-clients`, { name: 'x', scopeGroups: ['research'] }],
    ['POST', `${base()}/api-clients/some-client/revoke`],
    ['GET', `${base()}/subscription`],
  ];

  describe('API clients', () => {
    it('creates a client (the secret once), lists it without the secret, the secret works, revoking ends it', async () => {
      const created = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, {
        name: 'nightly export',
        scopeGroups: ['research'],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'nightly export',
        scopeGroups: ['research'],
        createdBy: ada.email,
        revokedAt: null,
        clientSecret: expect.any(String),
      });
      const { id, clientSecret } = created.body;

      const listed = await stack.call(tokens.ada, 'GET', `${base()}/api-clients`);
      expect(listed.status).toBe(200);
      expect(listed.body.apiClients).toEqual([
        expect.objectContaining({ id, name: 'nightly export', createdBy: ada.email, revokedAt: null }),
      ]);
      expect(JSON.stringify(listed.body)).not.toContain(clientSecret);

      const token = await clientCredentials(id, clientSecret);
      expect(token.status).toBe(200);
      expect(token.body.access_token).toEqual(expect.any(String));

      stack.clock.advance(1000);
      const revoked = await stack.call(tokens.ada, 'POST', `${base()}/api-clients/${id}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revokedAt).toEqual(expect.any(String));
      expect((await clientCredentials(id, clientSecret)).status).toBe(401);

      // Both recorded as the person's acts, without the secret.
      const events = await stack.call(tokens.ada, 'GET', `${base()}/events?limit=2`);
      expect(events.body.events.map((e: any) => [e.type, e.actorKind, e.actorId])).toEqual([
        ['api_client.revoked', 'person', ada.id],
        ['api_client.created', 'person', ada.id],
      ]);
      expect(JSON.stringify(events.body)).not.toContain(clientSecret);
    });

    it('no one grants a scope group they do not hold: 403 and no client', async () => {
      const res = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, {
        name: 'too wide',
        scopeGroups: ['research', 'treasury'],
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        errorCode: 'PERMISSION_DENIED',
        message: expect.stringContaining('treasury'),
      });
      const listed = await stack.call(tokens.ada, 'GET', `${base()}/api-clients`);
      expect(listed.body.apiClients.map((c: any) => c.name)).not.toContain('too wide');
    });

    it('bad input answers 400 {errorCode, message}, never a 5xx', async () => {
      const bodies: unknown[] = [
        {},
        { name: '', scopeGroups: ['research'] },
        { name: 'x', scopeGroups: [] },
        { name: 'x', scopeGroups: ['bad group!'] },
        { name: 'x\u0000', scopeGroups: ['research\u0000'] },
        { name: 'x'.repeat(5000), scopeGroups: ['research'] },
        { name: 'x', scopeGroups: ['research'], organisationId: other },
      ];
      for (const json of bodies) {
        const res = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, json);
        expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
        expect(res.body).toMatchObject({ errorCode: expect.any(String), message: expect.any(String) });
      }
      const malformed = await fetch(`${stack.svc.publicUrl}${base()}/api-clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json' },
        body: '{"name":',
      });
      expect(malformed.status).toBe(400);
    });

    it("refuses another organisation's client id (404) and another organisation's path (403), nothing revoked", async () => {
      const theirs = await http(`${stack.svc.adminUrl}/admin/api-clients`, {
        method: 'POST',
        json: { organisationId: other, name: 'theirs', scopeGroups: ['reporting'] },
      });
      expect(theirs.status).toBe(201);
      const id = (theirs.body as any).id;
      const res = await stack.call(tokens.ada, 'POST', `${base()}/api-clients/${id}/revoke`);
      expect(res.status).toBe(404);
      expect(res.body.errorCode).toBe('API_CLIENT_NOT_FOUND');
      expect((await clientCredentials(id, (theirs.body as any).clientSecret)).status).toBe(200);
      const path = await stack.call(tokens.ada, 'GET', `/console/organisations/${other}/api-clients`);
      expect(path.status).toBe(403);
      expect(path.body.errorCode).toBe('FORBIDDEN');
    });

    it('an admin (no ManageOrganisationSettings) may not list them: 403 PERMISSION_DENIED', async () => {
      const res = await stack.call(tokens.lead, 'GET', `${base()}/api-clients`);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ errorCode: 'PERMISSION_DENIED' });
    });
  });

  describe('subscription', () => {
    it('shows the organisation status and its marketplace subscriptions, read-only', async () => {
      const before = await stack.call(tokens.ada, 'GET', `${base()}/subscription`);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({ status: 'subscribed', m365: false, marketplace: [] });
      const id = randomUUID();
      await sql`insert into marketplace_subscriptions
          (id, organisation_id, tenant_id, offer_id, plan_id, quantity, status, purchaser_email, activated_at, updated_at)
        values (${id}, ${acme}, ${randomUUID()}, 'magic-saas', 'magic-team', 25, 'Suspended',
          'buyer@acme.test', now(), now())`.execute(stack.db.kysely);
      const after = await stack.call(tokens.ada, 'GET', `${base()}/subscription`);
      expect(after.body.marketplace).toEqual([
        expect.objectContaining({
          id,
          offerId: 'magic-saas',
          planId: 'magic-team',
          quantity: 25,
          status: 'Suspended',
        }),
      ]);
      // Read-only: no route changes it.
      const put = await stack.call(tokens.ada, 'PUT', `${base()}/subscription`, { status: 'Subscribed' });
      expect(put.status).toBe(404);
    });

    it("an admin (no MagicManageOrganisationBilling) is refused, and so is another organisation's", async () => {
      const lead403 = await stack.call(tokens.lead, 'GET', `${base()}/subscription`);
      expect(lead403.status).toBe(403);
      expect(lead403.body.errorCode).toBe('PERMISSION_DENIED');
      const theirs = await stack.call(tokens.stranger, 'GET', `${base()}/subscription`);
      expect(theirs.status).toBe(403);
      expect(theirs.body.errorCode).toBe('FORBIDDEN');
    });
  });

  describe('every route', () => {
    it('refuses a missing token (401), a member (403) and an expired token (401), {errorCode, message}', async () => {
      for (const [method, path, json] of everyRoute()) {
        const anonymous = await stack.call(undefined, method, path, json);
        expect(anonymous.status, `${method} ${path}`).toBe(401);
        expect(anonymous.body).toMatchObject({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) });
        const member = await stack.call(tokens.grace, method, path, json);
        expect(member.status, `${method} ${path}`).toBe(403);
        expect(member.body).toMatchObject({ errorCode: 'PERMISSION_DENIED', message: expect.any(String) });
      }
      const now = stack.clock.now();
      stack.clock.advance(24 * 3_600_000);
      try {
        for (const [method, path, json] of everyRoute()) {
          const expired = await stack.call(tokens.ada, method, path, json);
          expect(expired.status, `${method} ${path}`).toBe(401);
          expect(expired.body.errorCode).toBe('UNAUTHENTICATED');
        }
      } finally {
        stack.clock.set(now);
      }
    });

    it("refuses another organisation's org-admin on every route: 403 FORBIDDEN", async () => {
      for (const [method, path, json] of everyRoute()) {
        const res = await stack.call(tokens.stranger, method, path, json);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.errorCode).toBe('FORBIDDEN');
      }
    });
  });
});
