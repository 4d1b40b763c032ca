import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startStandIns, type StandIns } from './index.ts';

// Every request parser of the stand-ins answers arbitrary input with a 2xx/3xx/4xx, never a 5xx.
describe('stand-ins request parsers under arbitrary input', () => {
  let standIns: StandIns;
  beforeAll(async () => {
    standIns = await startStandIns({ httpPort: 0, smtpPort: 0 });
  });
  afterAll(() => standIns.close());

  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 2 }),
  );
  const fields = fc.dictionary(
    fc.constantFrom(
      'client_id',
      'client_secret',
      'code',
      'redirect_uri',
      'state',
      'scope',
      'login',
      'decision',
      'to',
      'waitMs',
      'x',
    ),
    value,
  );
  const query = fc.dictionary(
    fc.constantFrom('client_id', 'redirect_uri', 'state', 'scope', 'login', 'to', 'waitMs'),
    fc.string(),
  );

  function qs(params: Record<string, string>): string {
    return new URLSearchParams(params).toString();
  }

  it('token endpoint and authorize form', async () => {
    await fc.assert(
      fc.asyncProperty(
        fields,
        fc.boolean(),
        fc.constantFrom('access_token', 'authorize'),
        async (body, asJson, path) => {
          const url = `${standIns.urls.github}/login/oauth/${path}`;
          const init: RequestInit = asJson
            ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
            : {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: qs(Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]))),
              };
          const res = await fetch(url, { ...init, redirect: 'manual' });
          await res.arrayBuffer();
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('authorize page, mailbox API and /user', async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.string(), async (params, auth) => {
        const safe = { ...params, waitMs: '0' };
        for (const url of [
          `${standIns.urls.github}/login/oauth/authorize?${qs(params)}`,
          `${standIns.urls.mailApi}?${qs(safe)}`,
          `${standIns.urls.mailbox}?${qs(safe)}`,
        ]) {
          const res = await fetch(url, { redirect: 'manual' });
          await res.arrayBuffer();
          expect(res.status).toBeLessThan(500);
        }
        const headers = /^[\t\x20-\x7e]*$/.test(auth) ? { authorization: auth } : undefined;
        const user = await fetch(`${standIns.urls.githubApi}/user`, headers ? { headers } : {});
        await user.arrayBuffer();
        expect(user.status).toBe(401);
      }),
      { numRuns: 60 },
    );
  });
});
