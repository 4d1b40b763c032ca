import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSTORABLE_SAMPLES } from '@acme/test-kit/hostile-text';
import { http, startTestService, type TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * NUL and lone surrogates: PostgreSQL refuses NUL in text and jsonb, so one that reached a query
 * was a 500. Every body, query and path answers 400 `{errorCode: INVALID_REQUEST, message}`.
 */
describe('NUL and lone surrogates (user service)', () => {
  let svc: TestUsersService;
  beforeAll(async () => {
    svc = await startTestService({ env: { LOGIN_CONFIG_RATE_LIMIT: '100000' } });
  });
  afterAll(() => svc.close());

  const refused = (res: { status: number; body: unknown }, what: string) => {
    expect(res.status, what).toBe(400);
    expect(res.body, what).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
  };

  it('NUL in the login identifier (login configuration) answers 400, never a 500', async () => {
    refused(await http(`${svc.publicUrl}/login/config?emailAddress=ada%40acme.test%00`), 'query');
    refused(await http(`${svc.adminUrl}/admin/users/a%00b`), 'path');
    refused(await http(`${svc.adminUrl}/admin/users?organisationId=%00`), 'admin query');
  });

  it('NUL or a lone surrogate in a JSON body answers 400, never a 500; nothing is stored', async () => {
    for (const bad of UNSTORABLE_SAMPLES) {
      const org = await http(`${svc.adminUrl}/admin/organisations`, {
        method: 'POST',
        json: { name: `Acme${bad}`, domains: ['acme.test'], products: ['Platform'] },
      });
      refused(org, `organisation name ${JSON.stringify(bad)}`);
      const user = await http(`${svc.adminUrl}/admin/users`, {
        method: 'POST',
        json: {
          organisationId: '00000000-0000-4000-8000-000000000000',
          email: `ada@acme.test${bad}`,
          firstName: 'Ada',
          lastName: 'L',
          role: 'member',
        },
      });
      refused(user, `user email ${JSON.stringify(bad)}`);
      const consent = await http(`${svc.publicUrl}/login/consent`, {
        method: 'POST',
        json: { consentChallenge: `c${bad}` },
      });
      refused(consent, `consent challenge ${JSON.stringify(bad)}`);
    }
    const list = await http(`${svc.adminUrl}/admin/organisations`);
    expect((list.body as any).organisations).toEqual([]);
  });
});
