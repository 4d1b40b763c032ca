import { documentedStatuses, openApiErrors } from '@acme/test-kit/openapi';
import { describe, expect, it } from 'vitest';
import { acceptUserCode, deviceAuthorization, openVerification, pollToken } from './device-harness.ts';
import { adminJson, CookieJar, navigate, useTestServer } from './harness.ts';

/**
 * The authorization server's answers on the routes of issue 25, checked against Hydra's own
 * published OpenAPI document (packages/test-kit/fixtures/ory-openapi/hydra-api.json). Every 2xx and
 * 4xx status the document lists for these routes is exercised.
 */

const server = useTestServer({ env: { OAUTH2_DEVICE_USER_CODE_ATTEMPTS_PER_IP: '2' } });

async function json(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
}

function conforms(path: string, method: string, status: number, body: unknown) {
  expect(openApiErrors('hydra', path, method, status, body)).toEqual([]);
}

describe("Hydra's OpenAPI document: device flow, health, version and clients", () => {
  it('the document lists the statuses exercised below', () => {
    expect(documentedStatuses('hydra', '/oauth2/device/auth', 'post')).toEqual(['200', 'default']);
    expect(documentedStatuses('hydra', '/oauth2/device/verify', 'get')).toEqual(['302', 'default']);
    expect(documentedStatuses('hydra', '/admin/oauth2/auth/requests/device/accept', 'put')).toEqual([
      '200',
      'default',
    ]);
    expect(documentedStatuses('hydra', '/admin/clients', 'get')).toEqual(['200', 'default']);
    expect(documentedStatuses('hydra', '/admin/clients/{id}', 'get')).toEqual(['200', 'default']);
    expect(documentedStatuses('hydra', '/health/ready', 'get')).toEqual(['200', '503']);
    expect(documentedStatuses('hydra', '/version', 'get')).toEqual(['200']);
  });

  it('the validator refuses answers of the wrong shape', () => {
    expect(openApiErrors('hydra', '/admin/clients/{id}', 'get', 200, { skip_consent: 'yes' })).not.toEqual(
      [],
    );
    expect(openApiErrors('hydra', '/oauth2/device/auth', 'post', 200, { expires_in: '600' })).not.toEqual([]);
  });

  it('POST /oauth2/device/auth: 200 deviceAuthorization, 4xx errorOAuth2', async () => {
    const ok = await deviceAuthorization(server);
    conforms('/oauth2/device/auth', 'post', ok.status, ok.body);
    expect(ok.status).toBe(200);
    const unknown = await deviceAuthorization(server, { clientId: 'nope' });
    expect(unknown.status).toBe(401);
    conforms('/oauth2/device/auth', 'post', unknown.status, unknown.body);
  });

  it('GET /oauth2/device/verify: 302 without a body, 4xx errorOAuth2', async () => {
    const res = await navigate(new CookieJar(), `${server.publicUrl}/oauth2/device/verify`);
    expect(res.status).toBe(302);
    const bad = await json(`${server.publicUrl}/oauth2/device/verify?device_verifier=nope`);
    expect(bad.status).toBe(400);
    conforms('/oauth2/device/verify', 'get', bad.status, bad.body);
  });

  it('PUT /admin/oauth2/auth/requests/device/accept: 200 oAuth2RedirectTo; 400, 404, 410 and 429 errorOAuth2', async () => {
    const path = '/admin/oauth2/auth/requests/device/accept';
    const auth = await deviceAuthorization(server);
    const { challenge } = await openVerification(server, new CookieJar());
    const wrong = await acceptUserCode(server, challenge, 'BCDF-GHJK');
    expect(wrong.status).toBe(400);
    conforms(path, 'put', wrong.status, wrong.body);
    const ok = await acceptUserCode(server, challenge, auth.body.user_code as string);
    expect(ok.status).toBe(200);
    conforms(path, 'put', ok.status, ok.body);
    const handled = await acceptUserCode(server, challenge, auth.body.user_code as string);
    expect(handled.status).toBe(410);
    conforms(path, 'put', handled.status, handled.body);
    const unknown = await acceptUserCode(server, 'nope', 'BCDF-GHJK');
    expect(unknown.status).toBe(404);
    conforms(path, 'put', unknown.status, unknown.body);
    const again = await openVerification(server, new CookieJar());
    await acceptUserCode(server, again.challenge, 'BCDF-GHJL');
    const limited = await acceptUserCode(server, again.challenge, 'BCDF-GHJM');
    expect(limited.status).toBe(429);
    conforms(path, 'put', limited.status, limited.body);
  });

  it('POST /oauth2/token with the device grant: 400 errorOAuth2 while pending', async () => {
    const auth = await deviceAuthorization(server);
    const pending = await pollToken(server, auth.body.device_code as string);
    expect(pending.status).toBe(400);
    conforms('/oauth2/token', 'post', pending.status, pending.body);
  });

  it('/health/alive, /health/ready and /version answer on the public port as on the admin port', async () => {
    for (const base of [server.publicUrl, server.admin]) {
      const alive = await json(`${base}/health/alive`);
      expect(alive).toMatchObject({ status: 200, body: { status: 'ok' } });
      conforms('/health/alive', 'get', 200, alive.body);
      const ready = await json(`${base}/health/ready`);
      expect(ready).toMatchObject({ status: 200, body: { status: 'ok' } });
      conforms('/health/ready', 'get', 200, ready.body);
      const version = await json(`${base}/version`);
      expect(version.status).toBe(200);
      expect((version.body as { version: string }).version).toMatch(/^v\d+\.\d+\.\d+/);
      conforms('/version', 'get', 200, version.body);
    }
  });

  it('GET /admin/clients lists every client (applications, device client, API clients) without secrets; GET /admin/clients/{id} shows each', async () => {
    const created = await adminJson(server, 'POST', '/admin/clients', {
      client_name: 'Nightly job',
      grant_types: ['client_credentials'],
    });
    expect(created.status).toBe(201);
    const list = await json(`${server.admin}/admin/clients`);
    expect(list.status).toBe(200);
    conforms('/admin/clients', 'get', 200, list.body);
    const clients = list.body as Record<string, unknown>[];
    // The configured clients are seeded at start-up (oldest first), then the one created here.
    expect(clients.map((c) => c.client_id)).toEqual([
      'magic',
      'platform',
      'research-cli',
      created.body.client_id,
    ]);
    for (const client of clients) expect(client).not.toHaveProperty('client_secret');

    for (const id of ['platform', 'research-cli', created.body.client_id as string]) {
      const one = await json(`${server.admin}/admin/clients/${id}`);
      expect(one.status).toBe(200);
      expect((one.body as { client_id: string }).client_id).toBe(id);
      expect(one.body).not.toHaveProperty('client_secret');
      conforms('/admin/clients/{id}', 'get', 200, one.body);
    }
    const platform = (await json(`${server.admin}/admin/clients/platform`)).body;
    expect(platform).toMatchObject({
      client_name: 'Platform',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://localhost:4000/account/callback'],
      skip_consent: true,
    });
    const missing = await json(`${server.admin}/admin/clients/nope`);
    expect(missing.status).toBe(404);
    conforms('/admin/clients/{id}', 'get', 404, missing.body);
  });
});
