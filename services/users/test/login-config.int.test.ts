import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { createTestDb } from '@acme/db';
import type { Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Records every query the app sends, as its operation tree in JSON. */
class QueryRecorder implements KyselyPlugin {
  queries: string[] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.queries.push(JSON.stringify(args.node));
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const headerNames = (headers: Headers) => {
  const names: string[] = [];
  headers.forEach((_value, name) => names.push(name));
  return names.sort();
};

const touchesTable = (query: string, table: string) => query.includes(`"name":"${table}"`);

describe('GET /login/config', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;
  const recorder = new QueryRecorder();

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identity.adminUrl,
        IDENTITY_PUBLIC_URL: identity.publicUrl,
        LOGIN_CONFIG_RATE_LIMIT: '1000',
      },
      plugin: recorder,
    });
    const admin = (path: string, json: unknown) => http(`${svc.adminUrl}${path}`, { method: 'POST', json });
    const acme = await admin('/admin/organisations', {
      name: 'Acme',
      domains: ['acme.test'],
      products: ['Platform'],
    });
    await admin('/admin/organisations', {
      name: 'Globex',
      domains: ['globex.test'],
      products: ['Platform'],
      sso: { provider: 'globex' },
    });
    await admin('/admin/organisations', {
      name: 'Contoso',
      domains: ['contoso.test'],
      products: ['MAGIC'],
      m365: true,
    });
    const user = await admin('/admin/users', {
      organisationId: (acme.body as any).id,
      email: 'ada@acme.test',
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'member',
      password: 'Research-Demo-2026!',
    });
    expect(user.status).toBe(201);
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
  });

  const config = (email: string, headers: Record<string, string> = {}) =>
    http(`${svc.publicUrl}/login/config?emailAddress=${encodeURIComponent(email)}`, { headers });

  it('answers a password organisation’s address', async () => {
    const res = await config('Ada@Acme.Test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: 'ada@acme.test',
      sso: false,
      provider: null,
      m365: false,
      magic: false,
      selfSignUp: false,
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers an SSO organisation’s address with its provider', async () => {
    const res = await config('someone@globex.test');
    expect(res.body).toEqual({
      email: 'someone@globex.test',
      sso: true,
      provider: 'globex',
      m365: false,
      magic: false,
      selfSignUp: false,
    });
  });

  it('answers an m365 organisation’s address, and whether the organisation has MAGIC', async () => {
    const res = await config('someone@contoso.test');
    expect(res.body).toEqual({
      email: 'someone@contoso.test',
      sso: false,
      provider: null,
      m365: true,
      magic: true,
      selfSignUp: false,
    });
  });

  it('answers a known user and an unknown address of the same domain identically, reading no user records', async () => {
    recorder.queries.length = 0;
    const known = await config('ada@acme.test');
    const knownQueries = [...recorder.queries];
    recorder.queries.length = 0;
    const unknown = await config('nobody@acme.test');
    const unknownQueries = [...recorder.queries];

    expect(known.status).toBe(unknown.status);
    expect(Object.keys(known.body as object)).toEqual(Object.keys(unknown.body as object));
    expect({ ...(known.body as any), email: 'x' }).toEqual({ ...(unknown.body as any), email: 'x' });
    expect(headerNames(known.headers)).toEqual(headerNames(unknown.headers));

    // Same database work for both, and none of it touches users.
    expect(knownQueries.map((q) => q.replaceAll('ada@acme.test', 'X'))).toEqual(
      unknownQueries.map((q) => q.replaceAll('nobody@acme.test', 'X')),
    );
    for (const query of [...knownQueries, ...unknownQueries])
      expect(touchesTable(query, 'users')).toBe(false);
    expect(knownQueries.some((q) => touchesTable(q, 'organisation_domains'))).toBe(true);
  });

  it('answers an address of an unknown domain with the same shape and status', async () => {
    const res = await config('someone@unknown.test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: 'someone@unknown.test',
      sso: false,
      provider: null,
      m365: false,
      magic: false,
      selfSignUp: false,
    });
  });

  it.each([
    ['a malformed address', '?emailAddress=not-an-email', 'INVALID_EMAIL'],
    ['an empty address', '?emailAddress=', 'INVALID_EMAIL'],
    ['no address', '', 'INVALID_REQUEST'],
    ['two addresses', '?emailAddress=a@acme.test&emailAddress=b@acme.test', 'INVALID_REQUEST'],
    ['an over-long address', `?emailAddress=${'a'.repeat(2000)}@acme.test`, 'INVALID_REQUEST'],
  ])('answers 400 for %s', async (_label, query, errorCode) => {
    const res = await http(`${svc.publicUrl}/login/config${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode, message: expect.any(String) });
  });

  it('allows credentialed CORS from the app origins only', async () => {
    const allowed = await config('ada@acme.test', { origin: 'http://localhost:4001' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:4001');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');

    const other = await config('ada@acme.test', { origin: 'http://evil.test' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const preflight = await http(`${svc.publicUrl}/login/consent`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:4000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:4000');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
  });
});

describe('GET /login/config rate limit', () => {
  let db: Database;
  let a: TestUsersService;
  let b: TestUsersService;
  const clock = new FakeClock(new Date('2026-03-01T09:00:10.000Z'));

  beforeAll(async () => {
    db = await createTestDb();
    const env = { LOGIN_CONFIG_RATE_LIMIT: '5', LOGIN_CONFIG_RATE_WINDOW_SECONDS: '60' };
    a = await startTestService({ db, env, clock });
    b = await startTestService({ db, env, clock });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.close();
  });

  const hit = (svc: TestUsersService, email = 'x@acme.test') =>
    http(`${svc.publicUrl}/login/config?emailAddress=${encodeURIComponent(email)}`);

  it('counts per IP across instances sharing one database, then answers 429 with Retry-After', async () => {
    for (const svc of [a, b, a, b, a]) expect((await hit(svc)).status).toBe(200);
    const limited = await hit(b);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ errorCode: 'RATE_LIMITED', message: expect.any(String) });
    expect(limited.headers.get('retry-after')).toBe('50');
    // Malformed probes are counted and limited too.
    expect((await hit(a, 'garbage')).status).toBe(429);
  });

  it('allows requests again in the next window', async () => {
    clock.advance(50_000);
    expect((await hit(a)).status).toBe(200);
  });
});
