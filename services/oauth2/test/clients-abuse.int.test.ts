import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from '@acme/db';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminJson, startServer, tokenRequest, useTestServer, type TestServer } from './harness.ts';

/**
 * The admin client API under bad input, and the ways a client could be impersonated: each refused
 * input answers Hydra's error with a description and changes nothing.
 */

const server = useTestServer();

const APP = {
  client_name: 'Acme Reports',
  grant_types: ['authorization_code', 'refresh_token'],
  redirect_uris: ['https://reports.acme.test/callback'],
};
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

async function clientRows(s: TestServer = server): Promise<string> {
  const rows = await sql<{ id: string; payload: unknown }>`
    select id, payload from oauth2_models where model = 'Client' order by id`.execute(s.db.kysely);
  return JSON.stringify(rows.rows);
}

async function post(body: unknown, s: TestServer = server) {
  return adminJson(s, 'POST', '/admin/clients', body);
}

async function raw(method: string, path: string, body: string, type = 'application/json') {
  const res = await fetch(`${server.admin}${path}`, { method, headers: { 'content-type': type }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function keyPair() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: randomUUID(), alg: 'ES256', use: 'sig' };
  return { jwk, privateKey };
}

async function assertion(s: TestServer, clientId: string, key: CryptoKey, jti: string = randomUUID()) {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(`${s.issuer}/oauth2/token`)
    .setJti(jti)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);
}

const withAssertion = (s: TestServer, jwt: string) =>
  tokenRequest(s, {
    grant_type: 'client_credentials',
    client_assertion_type: JWT_BEARER,
    client_assertion: jwt,
  });

describe('bad client documents are refused with a description and change nothing', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unknown grant type', { ...APP, grant_types: ['password'] }, 'invalid_client_metadata'],
    ['the implicit grant', { ...APP, grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['an unknown response type', { ...APP, response_types: ['token'] }, 'invalid_client_metadata'],
    [
      'an unknown auth method',
      { ...APP, token_endpoint_auth_method: 'client_secret_jwt' },
      'invalid_client_metadata',
    ],
    [
      'an http redirect URI that is not loopback',
      { ...APP, redirect_uris: ['http://reports.acme.test/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'a redirect URI with a fragment',
      { ...APP, redirect_uris: ['https://reports.acme.test/cb#x'] },
      'invalid_redirect_uri',
    ],
    [
      'an empty fragment',
      { ...APP, redirect_uris: ['https://reports.acme.test/cb#'] },
      'invalid_redirect_uri',
    ],
    ['a relative redirect URI', { ...APP, redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    [
      'a custom-scheme redirect URI',
      { ...APP, redirect_uris: ['javascript:alert(1)'] },
      'invalid_redirect_uri',
    ],
    [
      'credentials in a redirect URI',
      { ...APP, redirect_uris: ['https://a:b@reports.acme.test/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'an http post-logout URI that is not loopback',
      { ...APP, post_logout_redirect_uris: ['http://reports.acme.test/bye'] },
      'invalid_redirect_uri',
    ],
    [
      'a post-logout URI with a fragment',
      { ...APP, post_logout_redirect_uris: ['https://reports.acme.test/bye#x'] },
      'invalid_redirect_uri',
    ],
    ['a scope the server does not know', { ...APP, scope: 'openid admin' }, 'invalid_client_metadata'],
    [
      'an audience the server does not issue',
      { ...APP, audience: ['https://other.test'] },
      'invalid_client_metadata',
    ],
    [
      'a public client of client_credentials',
      { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
      'invalid_client_metadata',
    ],
    [
      'private_key_jwt without keys',
      { ...APP, token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    [
      'a private key in jwks',
      {
        ...APP,
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
      },
      'invalid_client_metadata',
    ],
    ['a short chosen secret', { ...APP, client_secret: 'hunter2' }, 'invalid_client_metadata'],
    ['a logo that is not a web URI', { ...APP, logo_uri: 'javascript:alert(1)' }, 'invalid_client_metadata'],
    ['a contact that is not an address', { ...APP, contacts: ['not an address'] }, 'invalid_client_metadata'],
    [
      'a bad lifespan',
      { ...APP, authorization_code_grant_access_token_lifespan: 'an hour' },
      'invalid_client_metadata',
    ],
    ['an unknown field', { ...APP, is_admin: true }, 'invalid_client_metadata'],
    [
      'a feature not offered (back-channel logout)',
      { ...APP, backchannel_logout_uri: 'https://reports.acme.test/bc' },
      'invalid_client_metadata',
    ],
    ['an oversized name', { ...APP, client_name: 'x'.repeat(201) }, 'invalid_client_metadata'],
    [
      'an oversized URI',
      { ...APP, redirect_uris: [`https://reports.acme.test/${'x'.repeat(2000)}`] },
      'invalid_client_metadata',
    ],
    [
      'too many redirect URIs',
      { ...APP, redirect_uris: Array.from({ length: 51 }, (_, i) => `https://r.acme.test/${i}`) },
      'invalid_client_metadata',
    ],
    ['oversized metadata', { ...APP, metadata: { blob: 'x'.repeat(17 * 1024) } }, 'invalid_client_metadata'],
    [
      'a document that is not an object',
      [APP] as unknown as Record<string, unknown>,
      'invalid_client_metadata',
    ],
  ];

  it.each(cases)('POST with %s', async (_name, body, error) => {
    const before = await clientRows();
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(String(res.body.error_description).length).toBeGreaterThan(10);
    expect(await clientRows()).toBe(before);
  });

  it('PUT with each bad document leaves the client as it was', async () => {
    const created = await post(APP);
    const id = created.body.client_id as string;
    const before = await clientRows();
    for (const [name, body, error] of cases) {
      const res = await adminJson(server, 'PUT', `/admin/clients/${id}`, body);
      expect(res.status, name).toBe(400);
      expect(res.body.error, name).toBe(error);
    }
    const renamed = await adminJson(server, 'PUT', `/admin/clients/${id}`, { ...APP, client_id: 'another' });
    expect(renamed.body.error).toBe('invalid_client_metadata');
    expect(await clientRows()).toBe(before);
  });

  it('prototype keys in a client document are refused before any handler', async () => {
    const before = await clientRows();
    for (const body of [
      '{"__proto__":{"skip_consent":true},"grant_types":["client_credentials"]}',
      '{"grant_types":["client_credentials"],"metadata":{"constructor":{"prototype":{"x":1}}}}',
      '{"grant_types":["client_credentials"],"metadata":{"a":{"__proto__":{"polluted":true}}}}',
    ]) {
      const res = await raw('POST', '/admin/clients', body);
      expect(res.status, body).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await clientRows()).toBe(before);
  });

  it('malformed JSON, an oversized body and a wrong content type change nothing', async () => {
    const before = await clientRows();
    expect((await raw('POST', '/admin/clients', '{"client_name":')).status).toBe(400);
    expect(
      (await raw('POST', '/admin/clients', JSON.stringify({ ...APP, metadata: { x: 'x'.repeat(70_000) } })))
        .status,
    ).toBe(413);
    // Not a JSON object: Fastify hands text over as a string, which is no client document.
    const text = await raw('POST', '/admin/clients', 'client_name=x', 'text/plain');
    expect(text.status).toBe(400);
    expect(text.body.error).toBe('invalid_client_metadata');
    expect(await clientRows()).toBe(before);
  });

  it('a malformed JSON Patch, or one that fails, answers invalid_request and changes nothing', async () => {
    const id = (await post(APP)).body.client_id as string;
    const before = await clientRows();
    for (const patch of [
      {},
      [{ op: 'rename', path: '/client_name' }],
      [{ op: 'replace', value: 'x' }],
      [{ op: 'replace', path: 'client_name', value: 'x' }],
      [{ op: 'remove', path: '/no_such_field' }],
      [{ op: 'add', path: '/redirect_uris/7', value: 'https://x.test/cb' }],
      [{ op: 'add', path: '/redirect_uris/01', value: 'https://x.test/cb' }],
      [{ op: 'move', from: '/metadata', path: '/metadata/inner' }],
      [{ op: 'test', path: '/client_name', value: 'someone else' }],
      // The first operation would apply; the failing test makes the whole patch fail.
      [
        { op: 'replace', path: '/client_name', value: 'changed' },
        { op: 'test', path: '/client_name', value: 'nope' },
      ],
      Array.from({ length: 101 }, () => ({ op: 'test', path: '/client_name', value: 'Acme Reports' })),
    ]) {
      const res = await adminJson(server, 'PATCH', `/admin/clients/${id}`, patch);
      expect(res.status, JSON.stringify(patch).slice(0, 80)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.error_description).toMatch(/JSON Patch/);
    }
    for (const [patch, error] of [
      [[{ op: 'replace', path: '/grant_types', value: ['password'] }], 'invalid_client_metadata'],
      [[{ op: 'add', path: '/redirect_uris/-', value: 'http://evil.test/cb' }], 'invalid_redirect_uri'],
      [[{ op: 'replace', path: '/client_id', value: 'taken-over' }], 'invalid_client_metadata'],
      [[{ op: 'add', path: '/is_admin', value: true }], 'invalid_client_metadata'],
    ] as const) {
      const res = await adminJson(server, 'PATCH', `/admin/clients/${id}`, patch);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(error);
    }
    expect(await clientRows()).toBe(before);
  });
});

describe('concurrent creation', () => {
  it('50 parallel creations with one chosen client_id: exactly one wins, the others answer 409 and overwrite nothing', async () => {
    const clientId = `race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post({ ...APP, client_id: clientId, client_name: `racer ${i}` })),
    );
    const won = answers.filter((a) => a.status === 201);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((a) => a.status !== 201)) {
      expect(lost.status).toBe(409);
      expect(lost.body.error).toBe('resource_conflict');
      expect(lost.body.client_secret).toBeUndefined();
    }
    const read = await adminJson(server, 'GET', `/admin/clients/${clientId}`);
    expect(read.body.client_name).toBe(won[0]!.body.client_name);
    const token = await tokenRequest(
      server,
      { grant_type: 'refresh_token', refresh_token: 'ory_rt_x' },
      {
        authorization: `Basic ${Buffer.from(`${clientId}:${won[0]!.body.client_secret as string}`).toString('base64')}`,
      },
    );
    // The winner's secret authenticates (the grant itself is unknown).
    expect(token.body.error).toBe('invalid_grant');
  });
});

describe('private_key_jwt', () => {
  it('a client of private_key_jwt with jwks gets tokens with an assertion signed by its key', async () => {
    const { jwk, privateKey } = await keyPair();
    const client = await post({
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    expect(client.status).toBe(201);
    expect(client.body.client_secret).toBeUndefined();
    const id = client.body.client_id as string;
    const token = await withAssertion(server, await assertion(server, id, privateKey));
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.access_token).toBeTruthy();
  });

  it('threat: a replayed private_key_jwt assertion (same jti) is refused', async () => {
    const { jwk, privateKey } = await keyPair();
    const id = (
      await post({
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      })
    ).body.client_id as string;
    const jwt = await assertion(server, id, privateKey);
    expect((await withAssertion(server, jwt)).status).toBe(200);
    const replayed = await withAssertion(server, jwt);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe('invalid_client');
    expect(replayed.body.access_token).toBeUndefined();
    // A fresh assertion with the same jti is a replay too.
    const sameJti = await withAssertion(
      server,
      await assertion(
        server,
        id,
        privateKey,
        (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti,
      ),
    );
    expect(sameJti.status).toBe(401);
  });

  it('threat: an assertion signed by another key is refused', async () => {
    const { jwk } = await keyPair();
    const other = await keyPair();
    const id = (
      await post({
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      })
    ).body.client_id as string;
    for (const jwt of [
      await assertion(server, id, other.privateKey),
      // The other key's public half named in the header does not help.
      await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', jwk: other.jwk })
        .setIssuer(id)
        .setSubject(id)
        .setAudience(`${server.issuer}/oauth2/token`)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(other.privateKey),
    ]) {
      const res = await withAssertion(server, jwt);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
  });

  it('threat: a jwks_uri naming a private or loopback address, or plain http, is refused', async () => {
    const { jwk } = await keyPair();
    const before = await clientRows();
    for (const uri of [
      'https://10.0.0.1/jwks.json',
      'https://127.0.0.1/jwks.json',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/jwks.json',
      'https://[::ffff:10.0.0.1]/jwks.json',
      'https://localhost/jwks.json',
      'http://jwks.acme.test/jwks.json',
    ]) {
      const res = await post({
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: uri,
      });
      expect(res.status, uri).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
      expect(res.body.error_description).toMatch(/jwks_uri/);
    }
    expect(await clientRows()).toBe(before);
    expect(jwk.kid).toBeTruthy();
  });
});

describe('private_key_jwt with a jwks_uri (a development host allowed over http)', () => {
  let permissive: TestServer;
  let strict: TestServer;
  let jwksServer: Server;
  let jwksUrl: string;
  let fetched = 0;
  let key: Awaited<ReturnType<typeof keyPair>>;

  beforeAll(async () => {
    key = await keyPair();
    jwksServer = createServer((_req, res) => {
      fetched += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [key.jwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    permissive = await startServer({
      env: { OAUTH2_JWKS_URI_HTTP_HOSTS: '127.0.0.1', OAUTH2_JWKS_URI_ALLOW_PRIVATE: 'true' },
    });
    strict = await startServer({
      db: permissive.db,
      env: { OAUTH2_PUBLIC_URL: permissive.issuer, OAUTH2_JWKS_URI_HTTP_HOSTS: '127.0.0.1' },
    });
  });
  afterAll(async () => {
    await strict.close();
    await permissive.close();
    await permissive.db.close();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  it("the client's keys are fetched from its jwks_uri", async () => {
    const created = await post(
      {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUrl,
      },
      permissive,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.client_id as string;
    const token = await withAssertion(permissive, await assertion(permissive, id, key.privateKey));
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(fetched).toBeGreaterThan(0);
  });

  it('threat: an instance whose outbound guard refuses private addresses never fetches a stored loopback jwks_uri', async () => {
    // Stored while allowed (or by a name that later rebinds to a private address): the fetch is
    // still made through the guard, which refuses it at connection time.
    const created = await post(
      {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUrl,
      },
      permissive,
    );
    const id = created.body.client_id as string;
    const before = fetched;
    const token = await withAssertion(strict, await assertion(strict, id, key.privateKey));
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
    expect(fetched).toBe(before);
    const refused = await post(
      {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUrl,
      },
      strict,
    );
    expect(refused.body.error).toBe('invalid_client_metadata');
  });
});
