import { registeredRoutes } from '@acme/service-kit/openapi';
import {
  documentedPath,
  documentOperations,
  operationKey,
  oryOperations,
  servedOpenApiErrors,
} from '@acme/test-kit/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, loadConfig } from '../src/index.ts';
import { useTestServer } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The admin listener's own OpenAPI document (`GET /openapi.json`) covers exactly the routes Hydra's
 * published document does not; real answers of those routes conform to it. The public listener is
 * oidc-provider's: Hydra's document and OpenID Connect discovery describe it.
 */

const server = useTestServer();
let doc: any;
let routes: { key: string; documented: boolean }[];

beforeAll(async () => {
  doc = await (await fetch(`${server.admin}/openapi.json`)).json();
  // The same composition as the running server, on its database, to list the admin routes.
  const app = await createApp({
    config: loadConfig({ OAUTH2_PUBLIC_URL: server.issuer }),
    db: server.db,
    logger: false,
  });
  await app.admin.ready();
  routes = registeredRoutes(app.admin).map((r) => ({
    key: operationKey(r.method, r.url),
    documented: !!r.schema,
  }));
  await app.admin.close();
});

async function admin(method: string, path: string, json?: unknown) {
  const res = await fetch(`${server.admin}${path}`, {
    method,
    ...(json === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
  });
  const body = (await res.json()) as unknown;
  const template = documentedPath(doc, path);
  expect(template, `${method} ${path} is in the document`).toBeDefined();
  expect(servedOpenApiErrors(doc, template!, method, res.status, body)).toEqual([]);
  return { status: res.status, body: body as any };
}

describe("authorization server OpenAPI document (additions to Hydra's)", () => {
  it("every admin route is in Hydra's document or in ours, and ours lists only our additions", () => {
    const hydra = new Set(oryOperations('hydra'));
    expect(doc.openapi).toBe('3.1.0');
    // A route neither Hydra nor we describe fails here, by name.
    expect(routes.filter((r) => !r.documented && !hydra.has(r.key)).map((r) => r.key)).toEqual([]);
    expect(documentOperations(doc)).toEqual(
      routes
        .filter((r) => r.documented)
        .map((r) => r.key)
        .sort(),
    );
    expect(documentOperations(doc).filter((k) => hydra.has(k))).toEqual([]);
    expect(documentOperations(doc)).toContain('POST /admin/oauth2/federated-tokens');
  });

  it('the validator refuses an answer of the wrong shape', () => {
    expect(servedOpenApiErrors(doc, '/admin/keys/rotate', 'post', 200, { kid: 1 })).not.toEqual([]);
  });

  it('our additions answer as documented', async () => {
    const token = await admin('POST', '/admin/oauth2/federated-tokens', {
      subject: 'someone',
      client_id: 'platform',
      session: { access_token: {} },
    });
    expect(token.status).toBe(200);
    expect((await admin('POST', '/admin/oauth2/federated-tokens', { subject: 'someone' })).status).toBe(400);
    const rotated = await admin('POST', '/admin/keys/rotate');
    expect(rotated.status).toBe(200);
    expect((await admin('POST', '/admin/keys/revoke', { kid: 'no-such-key' })).status).toBe(404);
    expect((await admin('POST', '/admin/keys/revoke', {})).status).toBe(400);
  });
});
