import fc from 'fast-check';
import { hostileText, wellFormed } from '@acme/test-kit/hostile-text';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { fastifyRoutes, sendPrototypeAttacks } from '@acme/test-kit/prototype-attacks';
import { http, recordingServer, startTestService } from './harness.ts';
import type { RecordingServer, TestUsersService } from './harness.ts';

/**
 * Request-parser fuzzing (reliability: bad input never gets a 500 or a hang): arbitrary JSON and arbitrary bytes sent to every
 * endpoint get a 4xx `{errorCode, message}` or a success, never a 5xx, a hang or a non-JSON answer.
 * Strings include NUL and lone surrogates (PostgreSQL refuses NUL in text).
 */
describe('fuzzing every endpoint', () => {
  let identity: IdentityUnderTest;
  let oauth2: RecordingServer;
  let svc: TestUsersService;

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    oauth2 = await recordingServer(() => ({ status: 404, body: { error: 'Not Found' } }));
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identity.adminUrl,
        IDENTITY_PUBLIC_URL: identity.publicUrl,
        OAUTH2_ADMIN_URL: oauth2.url,
        LOGIN_CONFIG_RATE_LIMIT: '100000',
        INVITATION_STATUS_RATE_LIMIT: '100000',
      },
    });
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
    await oauth2.close();
  });

  const endpoints = () => [
    `${svc.publicUrl}/login/consent`,
    `${svc.publicUrl}/login/logout`,
    `${svc.adminUrl}/admin/organisations`,
    `${svc.adminUrl}/admin/users`,
    `${svc.adminUrl}/admin/invitations`,
    `${svc.publicUrl}/terms/accept`,
    `${svc.publicUrl}/git-auth/initialise`,
    `${svc.publicUrl}/git-auth/complete`,
  ];

  const expectHandled = (status: number, body: unknown) => {
    expect(status).toBeLessThan(500);
    if (status >= 400) {
      expect(body).toEqual({ errorCode: expect.any(String), message: expect.any(String) });
    }
  };

  it('answers arbitrary JSON bodies without a 5xx', async () => {
    const shaped = fc.record(
      {
        consentChallenge: fc.jsonValue(),
        identitySessionId: fc.jsonValue(),
        logoutChallenge: fc.jsonValue(),
        name: fc.oneof(hostileText(), fc.jsonValue()),
        domains: fc.jsonValue(),
        products: fc.jsonValue(),
        organisationId: fc.oneof(fc.uuid(), hostileText()),
        email: fc.oneof(
          fc.emailAddress(),
          hostileText(),
          fc.emailAddress().map((e) => `${e}\u0000`),
        ),
        role: fc.constantFrom('member', 'admin', 'owner', ''),
        documents: fc.oneof(
          fc.jsonValue(),
          fc.array(fc.record({ document: fc.constantFrom('terms', 'privacy', 'x'), version: hostileText() })),
        ),
        flow: fc.jsonValue(),
        code: fc.oneof(hostileText(), fc.jsonValue()),
        state: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints()),
        fc.oneof(fc.jsonValue(), shaped),
        async (url, json) => {
          const res = await http(url, { method: 'POST', json });
          expectHandled(res.status, res.body);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('answers arbitrary bytes under any content type without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints()),
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-16',
          'text/plain',
          'application/octet-stream',
        ),
        async (url, bytes, type) => {
          const res = await http(url, { method: 'POST', headers: { 'content-type': type }, body: bytes });
          expectHandled(res.status, res.body);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('answers arbitrary email queries and ids without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileText().map(wellFormed), fc.emailAddress(), fc.string({ unit: 'grapheme' })),
        async (value) => {
          const config = await http(
            `${svc.publicUrl}/login/config?emailAddress=${encodeURIComponent(value)}`,
          );
          expectHandled(config.status, config.body);
          const user = await http(`${svc.adminUrl}/admin/users/${encodeURIComponent(value)}`);
          expectHandled(user.status, user.body);
          const list = await http(`${svc.adminUrl}/admin/users?organisationId=${encodeURIComponent(value)}`);
          expectHandled(list.status, list.body);
          const v = encodeURIComponent(value);
          for (const url of [
            `${svc.publicUrl}/invitations/status?flow=${v}`,
            `${svc.adminUrl}/admin/invitations/${v}`,
            `${svc.adminUrl}/admin/invitations?organisationId=${v}`,
            `${svc.adminUrl}/admin/terms/acceptances?format=${v}`,
          ]) {
            const res = await http(url);
            expectHandled(res.status, res.body);
          }
          for (const action of ['resend', 'revoke']) {
            const res = await http(`${svc.adminUrl}/admin/invitations/${v}/${action}`, { method: 'POST' });
            expectHandled(res.status, res.body);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('prototype keys, nested, dotted and in paths, to every route: no request reaches Object.prototype, each key gets a 4xx {errorCode, message} (SCIM: its error schema), and the service still works', async () => {
    const routes = [
      ...fastifyRoutes(svc.app.public).map((route) => ({ base: svc.publicUrl, route })),
      ...fastifyRoutes(svc.app.admin).map((route) => ({ base: svc.adminUrl, route })),
    ];
    // The route tables themselves: a new route is covered without this test naming it.
    expect(routes.length).toBeGreaterThan(60);
    const answers = [];
    for (const { base, route } of routes) answers.push(...(await sendPrototypeAttacks(base, [route])));
    const shaped = (url: string, body: unknown) =>
      url.startsWith('/scim/')
        ? typeof body === 'object' &&
          body !== null &&
          (body as { schemas?: unknown }).schemas?.toString() ===
            'urn:ietf:params:scim:api:messages:2.0:Error'
        : typeof body === 'object' &&
          body !== null &&
          typeof (body as { errorCode?: unknown }).errorCode === 'string' &&
          typeof (body as { message?: unknown }).message === 'string';
    const wrong = answers.filter(
      (a) =>
        a.prototype.length > 0 ||
        a.status >= 500 ||
        (a.namesKey && (a.status < 400 || !shaped(a.route.url, a.body))),
    );
    expect(
      wrong.map(
        (a) =>
          `${a.route.method} ${a.route.url} ${a.request}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)} ${a.prototype.join(', ')}`,
      ),
    ).toEqual([]);

    // Afterwards: a new organisation and person, and the first step of their sign-in.
    const org = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'After', domains: ['after.test'], products: ['Platform'] },
    });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    const config = await http(`${svc.publicUrl}/login/config?emailAddress=someone%40after.test`);
    expect(config.status, JSON.stringify(config.body)).toBe(200);
  }, 180_000);
});
