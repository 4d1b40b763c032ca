import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSTORABLE_SAMPLES } from '@acme/test-kit/hostile-text';
import {
  Browser,
  createUser,
  csrfOf,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../harness.ts';

/**
 * NUL and lone surrogates: PostgreSQL refuses NUL in text and jsonb, so a NUL that reached a query
 * was a 500. Every input answers 400 in the Kratos envelope (a flow submit: the flow with message
 * 4000001), and nothing is stored.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await createUser(h, 'ada@example.com');
});
afterAll(() => h.close());

type Kind = 'login' | 'recovery' | 'verification';
const FIELDS: Record<Kind, Record<string, string>> = {
  login: { method: 'password', identifier: 'ada@example.com', password: 'a password' },
  recovery: { method: 'code', email: 'ada@example.com' },
  verification: { method: 'code', email: 'ada@example.com' },
};
const TARGET: Record<Kind, string> = { login: 'identifier', recovery: 'email', verification: 'email' };

function expectRefused(res: { status: number; text: string; body: unknown }, what: string) {
  expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(400);
  const body = res.body as { error?: { code: number }; ui?: { messages?: { id: number }[] } };
  if (body.error) expect(body.error.code).toBe(400);
  else
    expect(
      body.ui?.messages?.map((m) => m.id),
      what,
    ).toContain(4000001);
}

describe('NUL and lone surrogates (identity)', () => {
  for (const kind of ['login', 'recovery', 'verification'] as const) {
    it(`NUL or a lone surrogate in the ${kind} ${TARGET[kind]} answers 400, never a 500 (JSON and form)`, async () => {
      for (const bad of UNSTORABLE_SAMPLES) {
        // A form body is UTF-8 on the wire: a lone surrogate cannot be sent in one (it arrives as
        // U+FFFD), a NUL can.
        for (const form of bad.includes('\u0000') ? [false, true] : [false]) {
          const b = new Browser(h.publicUrl);
          const flow = await startFlow<{ id: string; ui: { nodes: { attributes: object }[] } }>(b, kind);
          const fields = {
            ...FIELDS[kind],
            [TARGET[kind]]: `ada@example.com${bad}`,
            csrf_token: csrfOf(flow),
          };
          const res = form
            ? await b.post(`/self-service/${kind}?flow=${flow.id}`, { form: fields, accept: 'json' })
            : await submitFlow(b, kind, flow, fields);
          expectRefused(res, `${JSON.stringify(bad)} form=${form}`);
        }
      }
      expect(h.mailbox).toHaveLength(0);
    });
  }

  it('NUL in a query string or a path answers 400 in the Kratos envelope', async () => {
    const b = new Browser(h.publicUrl);
    for (const path of [
      '/self-service/login/flows?id=%00',
      '/self-service/login/browser?return_to=%00',
      '/self-service/errors?id=a%00b',
    ]) {
      const res = await b.get(path, { accept: 'json' });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400 });
    }
    const admin = new Browser(h.adminUrl);
    const res = await admin.get('/admin/identities/a%00b');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400 });
  });

  it('NUL or a lone surrogate in an admin JSON body answers 400 in the Kratos envelope', async () => {
    const admin = new Browser(h.adminUrl);
    for (const bad of UNSTORABLE_SAMPLES) {
      const res = await admin.post('/admin/identities', {
        json: {
          schema_id: 'default',
          traits: { email: `new${bad}@example.com`, name: { first: 'A', last: 'B' } },
        },
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400 });
    }
  });
});
