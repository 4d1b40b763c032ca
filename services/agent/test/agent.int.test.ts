import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, sql } from '@acme/db';
import type { Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { freePort } from '@acme/test-kit/free-port';
import { decodeJwt } from 'jose';
import {
  DEMO_FOREIGN_CLIENT_ID,
  DEMO_M365_CLIENT_ID,
  startMicrosoftStandIns,
  type MicrosoftStandIns,
} from '@acme/dev';
import { UNSTORABLE_SAMPLES } from '@acme/test-kit/hostile-text';
import { createApp, loadConfig, start } from '../src/index.ts';
import { registeredRoutes } from '@acme/service-kit/openapi';
import { documentOperations, operationKey, servedOpenApiErrors } from '@acme/test-kit/openapi';

/* eslint-disable @typescript-eslint/no-explicit-any */

async function http(url: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    ...rest,
    headers: json === undefined ? rest.headers : { 'content-type': 'application/json', ...rest.headers },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
}

describe('agent service', () => {
  let db: Database;
  let url: string;
  let adminUrl: string;
  let managementUrl: string;
  let close: () => Promise<void>;
  let ms: MicrosoftStandIns;
  /** Megan's Teams SSO token (Entra stand-in), valid for the fake clock's hours. */
  let megan: string;
  const clock = new FakeClock(new Date('2026-03-01T09:00:00.000Z'));
  const auth = () => ({ authorization: `Bearer ${megan}` });

  beforeAll(async () => {
    db = await createTestDb();
    ms = await startMicrosoftStandIns({
      entraPort: 0,
      graphPort: 0,
      marketplacePort: 0,
      clock,
      tokenTtlSeconds: 24 * 3600,
    });
    megan = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    const port = await freePort();
    const service = await start({
      db,
      env: {
        AGENT_PUBLIC_PORT: String(port),
        AGENT_ADMIN_PORT: '0',
        AGENT_MANAGEMENT_PORT: '0',
        AGENT_RATE_LIMIT: '50',
        M365_AUTHORITY_URL: ms.urls.entra,
        M365_CLIENT_ID: DEMO_M365_CLIENT_ID,
      },
      clock,
      logger: false,
    });
    expect(service.urls.public).toBe(`http://localhost:${port}`);
    adminUrl = service.urls.admin!;
    managementUrl = service.urls.management!;
    url = `http://127.0.0.1:${port}/misc/unregistered-user`;
    close = service.close;
  });
  afterAll(async () => {
    await close();
    await ms?.close();
    await db.close();
  });

  const rows = async () =>
    (
      await sql<{
        id: string;
        email: string;
        name: string;
        created_at: Date;
      }>`select * from agent_unregistered_user_requests`.execute(db.kysely)
    ).rows;

  it('records an unregistered user whose Microsoft token names the address, and answers 202 with its id', async () => {
    const res = await http(url, {
      method: 'POST',
      headers: auth(),
      json: { email: ' Megan@Contoso.test ', name: 'Megan Bowen' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const stored = (await rows()).find((r) => r.id === res.body.id);
    expect(stored).toMatchObject({
      email: 'megan@contoso.test',
      name: 'Megan Bowen',
      created_at: clock.now(),
    });
  });

  it('accepts the empty strings the app sends when the team client knows nothing (the token’s address is kept)', async () => {
    const res = await http(url, { method: 'POST', headers: auth(), json: { email: '', name: '' } });
    expect(res.status).toBe(202);
    expect((await rows()).find((r) => r.id === res.body.id)).toMatchObject({
      email: 'megan@contoso.test',
      name: '',
    });
  });

  it('a caller without a valid Microsoft token records nothing (no, forged, expired or foreign-client token)', async () => {
    const before = (await rows()).length;
    const claims = decodeJwt(megan);
    const forged = `${megan.slice(0, megan.lastIndexOf('.'))}.${'A'.repeat(342)}`;
    const expired = await ms.entra.sign({ ...claims, exp: Math.floor(clock.now().getTime() / 1000) - 3600 });
    const foreignClient = await ms.entra.sign({ ...claims, azp: DEMO_FOREIGN_CLIENT_ID });
    for (const authorization of [
      undefined,
      'Bearer not-a-jwt',
      `Bearer ${forged}`,
      `Bearer ${expired}`,
      `Bearer ${foreignClient}`,
      `Basic ${megan}`,
    ]) {
      const res = await http(url, {
        method: 'POST',
        headers: authorization ? { authorization } : {},
        json: { email: 'megan@contoso.test', name: 'Megan Bowen' },
      });
      expect(res.status, String(authorization).slice(0, 12)).toBe(401);
      expect(res.body.errorCode).toBe('UNAUTHENTICATED');
    }
    expect((await rows()).length).toBe(before);
  });

  it('a body naming another address than the token’s is refused and not recorded', async () => {
    const before = (await rows()).length;
    const res = await http(url, {
      method: 'POST',
      headers: auth(),
      json: { email: 'ceo@contoso.test', name: 'The CEO' },
    });
    expect(res).toMatchObject({ status: 403, body: { errorCode: 'FORBIDDEN' } });
    expect((await rows()).length).toBe(before);
  });

  it('allows credentialed CORS from the app origins only', async () => {
    const ok = await http(url, {
      method: 'POST',
      json: { email: '', name: '' },
      headers: { origin: 'http://localhost:4001', ...auth() },
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:4001');
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await http(url, {
      method: 'POST',
      json: { email: '', name: '' },
      headers: { origin: 'http://evil.test', ...auth() },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each([
    ['a missing field', { email: 'a@b.test' }],
    ['a malformed email', { email: 'nope', name: 'X' }],
    ['wrong types', { email: 1, name: null }],
    ['an unknown field', { email: '', name: '', admin: true }],
    ['a JSON array', []],
    ['an over-long name', { email: '', name: 'x'.repeat(201) }],
  ])('answers 400 INVALID_REQUEST for %s and records nothing', async (_label, json) => {
    const before = (await rows()).length;
    const res = await http(url, { method: 'POST', headers: auth(), json });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
    expect((await rows()).length).toBe(before);
  });

  it('answers malformed JSON, wrong content types, oversized bodies and unknown routes with {errorCode, message}', async () => {
    const cases: [RequestInit & { json?: unknown }, number, string, boolean?][] = [
      [
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":' },
        400,
        'INVALID_REQUEST',
      ],
      [{ method: 'POST', headers: { 'content-type': 'application/json' } }, 400, 'INVALID_REQUEST'],
      [
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ method: 'POST', json: { email: '', name: 'x'.repeat(10_000) } }, 413, 'PAYLOAD_TOO_LARGE'],
      [{ method: 'GET' }, 404, 'NOT_FOUND'],
      [{ method: 'GET' }, 404, 'NOT_FOUND', true],
    ];
    for (const [init, status, errorCode, elsewhere] of cases) {
      const target = elsewhere ? url.replace('/misc/unregistered-user', '/elsewhere') : url;
      const res = await http(target, init);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ errorCode, message: expect.any(String) });
    }
  });

  it('NUL or a lone surrogate in the name or email answers 400 {errorCode, message}, never a 500; nothing is recorded', async () => {
    const before = (await rows()).length;
    for (const bad of UNSTORABLE_SAMPLES) {
      for (const json of [
        { email: 'bob@contoso.test', name: `Bob${bad}` },
        { email: `bob@contoso.test${bad}`, name: 'Bob' },
        { email: 'bob@contoso.test', name: 'Bob', [`x${bad}`]: 1 },
      ]) {
        const res = await http(url, { method: 'POST', json });
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
      }
    }
    const query = await http(`${url}?x=%00`, { method: 'POST', json: { email: '', name: '' } });
    expect(query.status).toBe(400);
    expect((await rows()).length).toBe(before);
  });

  it('limits requests per IP with 429 and Retry-After, then recovers in the next window', async () => {
    clock.set(new Date('2026-03-01T10:00:00.000Z'));
    const statuses: number[] = [];
    for (let i = 0; i < 51; i++)
      statuses.push(
        (await http(url, { method: 'POST', headers: auth(), json: { email: '', name: '' } })).status,
      );
    expect(statuses.slice(0, 50).every((s) => s === 202)).toBe(true);
    const limited = await http(url, { method: 'POST', headers: auth(), json: { email: '', name: '' } });
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('60');
    clock.advance(60_000);
    expect((await http(url, { method: 'POST', headers: auth(), json: { email: '', name: '' } })).status).toBe(
      202,
    );
  });

  it('the per-IP limit holds under parallel requests: with 20 spent, of 50 at once 30 are recorded and 20 get 429 with Retry-After', async () => {
    clock.set(new Date('2026-03-01T11:00:00.000Z'));
    const send = () => http(url, { method: 'POST', headers: auth(), json: { email: '', name: 'Burst' } });
    const before = (await rows()).length;
    const spent = await Promise.all(Array.from({ length: 20 }, send));
    expect(spent.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 202));
    const answers = await Promise.all(Array.from({ length: 50 }, send));
    expect(answers.filter((r) => r.status === 202)).toHaveLength(30);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(20);
    for (const r of limited) {
      expect(r.body.errorCode).toBe('RATE_LIMITED');
      expect(r.headers.get('retry-after')).toBe('60');
    }
    // Nothing half-written: a record for each request admitted, none for the refused ones.
    expect((await rows()).length - before).toBe(50);
    clock.advance(60_000);
  });

  it('answers the health probes', async () => {
    for (const probe of ['alive', 'ready']) {
      const res = await http(url.replace('/misc/unregistered-user', `/health/${probe}`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    }
  });

  it('reads the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 4466,
      appOrigins: ['http://localhost:4000', 'http://localhost:4001'],
      rateLimit: 20,
    });
  });

  it('lists the recorded requests, newest first, on the admin API only', async () => {
    await http(url, { method: 'POST', headers: auth(), json: { email: '', name: 'Listed Person' } });
    const res = await fetch(`${adminUrl}/admin/unregistered-user-requests?limit=1000`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { requests: { email: string; name: string; createdAt: string }[] };
    expect(body.requests).toContainEqual(
      expect.objectContaining({ email: 'megan@contoso.test', name: 'Listed Person' }),
    );
    const times = body.requests.map((r) => r.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    const one = (await (await fetch(`${adminUrl}/admin/unregistered-user-requests?limit=1`)).json()) as {
      requests: unknown[];
    };
    expect(one.requests).toHaveLength(1);
    expect((await fetch(`${adminUrl}/admin/unregistered-user-requests?limit=0`)).status).toBe(400);
    expect(
      (await fetch(url.replace('/misc/unregistered-user', '/admin/unregistered-user-requests'))).status,
    ).toBe(404);
  });

  it('serves /metrics on the management listener only', async () => {
    const res = await fetch(`${managementUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('http_request_duration_seconds_count{') &&
          l.includes('route="/misc/unregistered-user"'),
      );
    expect(line).toContain('service="agent"');
    const pub = await fetch(new URL('/metrics', url));
    expect(pub.status).toBe(404);
    expect((await fetch(`${adminUrl}/metrics`)).status).toBe(404);
  });

  it('each listener serves an OpenAPI document of all its routes, and real answers conform to it', async () => {
    const publicBase = url.replace('/misc/unregistered-user', '');
    const publicDoc = (await http(`${publicBase}/openapi.json`)).body;
    const adminDoc = (await http(`${adminUrl}/openapi.json`)).body;
    // The same composition as the running service, to list its routes.
    const app = await createApp({
      config: loadConfig({ M365_AUTHORITY_URL: ms.urls.entra, M365_CLIENT_ID: DEMO_M365_CLIENT_ID }),
      db,
      logger: false,
    });
    for (const [doc, listener] of [
      [publicDoc, app.public],
      [adminDoc, app.admin],
    ] as const) {
      await listener.ready();
      const routes = registeredRoutes(listener);
      // A route added without `openApi({...})` fails here, by name.
      expect(routes.filter((r) => !r.schema).map((r) => `${r.method} ${r.url}`)).toEqual([]);
      expect(documentOperations(doc)).toEqual(routes.map((r) => operationKey(r.method, r.url)).sort());
      await listener.close();
    }
    const conforms = (doc: unknown, path: string, method: string, res: { status: number; body: unknown }) =>
      expect(servedOpenApiErrors(doc, path, method, res.status, res.body)).toEqual([]);
    const accepted = await http(url, { method: 'POST', headers: auth(), json: { email: '', name: 'Doc' } });
    expect(accepted.status).toBe(202);
    conforms(publicDoc, '/misc/unregistered-user', 'post', accepted);
    const refused = await http(url, { method: 'POST', json: { email: '', name: '' } });
    expect(refused.status).toBe(401);
    conforms(publicDoc, '/misc/unregistered-user', 'post', refused);
    const metadata = await http(`${publicBase}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).toBe(200);
    conforms(publicDoc, '/.well-known/oauth-protected-resource/mcp', 'get', metadata);
    const mcp = await http(`${publicBase}/mcp`, {
      method: 'POST',
      json: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(mcp.status).toBe(401);
    conforms(publicDoc, '/mcp', 'post', mcp);
    const list = await http(`${adminUrl}/admin/unregistered-user-requests?limit=5`);
    expect(list.status).toBe(200);
    conforms(adminDoc, '/admin/unregistered-user-requests', 'get', list);
    expect(
      servedOpenApiErrors(adminDoc, '/admin/unregistered-user-requests', 'get', 200, { requests: [{}] }),
    ).not.toEqual([]);
  });
});

describe('agent admin API access', () => {
  it('requires the admin key when one is configured, and refuses foreign Host headers', async () => {
    const db = await createTestDb();
    const key = 'k'.repeat(40);
    const service = await start({
      db,
      env: {
        AGENT_PUBLIC_PORT: '0',
        AGENT_ADMIN_PORT: '0',
        AGENT_MANAGEMENT_PORT: '0',
        AGENT_ADMIN_KEY: key,
      },
      logger: false,
    });
    try {
      const list = `${service.urls.admin}/admin/unregistered-user-requests`;
      const none = await fetch(list);
      expect(none.status).toBe(401);
      expect(((await none.json()) as { errorCode: string }).errorCode).toBe('UNAUTHENTICATED');
      expect((await fetch(list, { headers: { authorization: `Bearer ${'x'.repeat(40)}` } })).status).toBe(
        401,
      );
      expect((await fetch(list, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = request(
          list,
          { headers: { authorization: `Bearer ${key}`, host: 'evil.example' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(rebound).toBe(403);
    } finally {
      await service.close();
      await db.close();
    }
  });
});
