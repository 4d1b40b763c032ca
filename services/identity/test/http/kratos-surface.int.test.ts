import { documentedStatuses, openApiErrors } from '@acme/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, startHarness, type Harness } from '../harness.ts';

/**
 * Registration (off), `/sessions/token-exchange` and `/version`: Kratos's answers, never a 404
 * "Unable to find the requested route", checked against Kratos's published OpenAPI document.
 */

let h: Harness;
beforeAll(async () => {
  // No user service answers, so no organisation has self sign-up open.
  h = await startHarness({ USERS_ADMIN_URL: 'http://127.0.0.1:9' });
});
afterAll(() => h.close());

const conforms = (path: string, method: string, status: number, body: unknown, responseKey?: string) =>
  expect(openApiErrors('kratos', path, method, status, body, responseKey)).toEqual([]);

const DISABLED = {
  error: {
    id: 'self_service_flow_disabled',
    code: 400,
    status: 'Bad Request',
    reason: 'Registration is not allowed because it was disabled.',
    message: 'registration flow disabled',
  },
};

describe('registration is off by default (self_service_flow_disabled)', () => {
  it('JSON: every registration route answers 400 self_service_flow_disabled', async () => {
    const b = new Browser(h.publicUrl);
    const routes: [string, string, string][] = [
      ['GET', '/self-service/registration/api', '/self-service/registration/api'],
      ['GET', '/self-service/registration/browser', '/self-service/registration/browser'],
      ['GET', '/self-service/registration/flows?id=x', '/self-service/registration/flows'],
      ['POST', '/self-service/registration?flow=x', '/self-service/registration'],
    ];
    for (const [method, url, path] of routes) {
      const res = await b.request(method, url, {
        accept: 'json',
        ...(method === 'POST' ? { json: { method: 'password' } } : {}),
      });
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual(DISABLED);
      // The document's 400 for POST is the flow with validation messages; Kratos answers a disabled
      // flow with herodot's envelope, the document's `default` (errorGeneric).
      conforms(path, method, 400, res.body, method === 'POST' ? 'default' : undefined);
    }
    expect(documentedStatuses('kratos', '/self-service/registration/api', 'get')).toContain('400');
  });

  it('a browser is sent to the error page carrying the error', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.request('GET', '/self-service/registration/browser', { accept: 'html' });
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get('location')!);
    const id = to.searchParams.get('id')!;
    const stored = await b.request('GET', `/self-service/errors?id=${id}`, { accept: 'json' });
    expect(stored.body.error).toEqual(DISABLED.error);
  });
});

describe('GET /sessions/token-exchange', () => {
  it('400 without both codes, 404 for an unknown code (no native OIDC flows, so no code exists)', async () => {
    const b = new Browser(h.publicUrl);
    const missing = await b.request('GET', '/sessions/token-exchange', { accept: 'json' });
    expect(missing.status).toBe(400);
    conforms('/sessions/token-exchange', 'get', 400, missing.body);
    const unknown = await b.request('GET', '/sessions/token-exchange?init_code=a&return_to_code=b', {
      accept: 'json',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.reason).not.toBe('Unable to find the requested route.');
    conforms('/sessions/token-exchange', 'get', 404, unknown.body);
  });
});

describe('GET /version', () => {
  it('answers {version} on the public and the admin port', async () => {
    for (const base of [h.publicUrl, h.adminUrl]) {
      const res = await new Browser(base).request('GET', '/version', { accept: 'json' });
      expect(res.status).toBe(200);
      expect(res.body.version).toMatch(/^v\d+\.\d+\.\d+/);
      conforms('/version', 'get', 200, res.body);
    }
  });
});
