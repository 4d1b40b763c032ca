import { randomUUID } from 'node:crypto';
import { registeredRoutes } from '@acme/service-kit/openapi';
import {
  documentedPath,
  documentOperations,
  operationKey,
  oryOperations,
  servedOpenApiErrors,
} from '@acme/test-kit/openapi';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startHarness, type Harness } from '../harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The identity service's own OpenAPI documents (`GET /openapi.json` on the public and the admin
 * listener) cover exactly the routes Kratos's published document does not; real answers of those
 * routes conform to them.
 */

let h: Harness;
let publicDoc: any;
let adminDoc: any;
beforeAll(async () => {
  h = await startHarness({ USERS_ADMIN_URL: 'http://127.0.0.1:9' });
  publicDoc = await (await fetch(`${h.publicUrl}/openapi.json`)).json();
  adminDoc = await (await fetch(`${h.adminUrl}/openapi.json`)).json();
});
afterAll(() => h.close());

async function call(doc: any, base: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    ...(json === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  const pathname = new URL(path, 'http://x').pathname;
  const template = documentedPath(doc, pathname);
  expect(template, `${method} ${pathname} is in the document`).toBeDefined();
  expect(servedOpenApiErrors(doc, template!, method, res.status, body)).toEqual([]);
  return { status: res.status, body: body as any };
}

function routesOf(app: FastifyInstance) {
  return registeredRoutes(app).map((r) => ({ key: operationKey(r.method, r.url), documented: !!r.schema }));
}

describe("identity service OpenAPI documents (additions to Kratos's)", () => {
  it("every route is in Kratos's document or in ours, and ours lists only our additions", () => {
    const kratos = new Set(oryOperations('kratos'));
    for (const [doc, app] of [
      [publicDoc, h.app.public],
      [adminDoc, h.app.admin],
    ] as const) {
      expect(doc.openapi).toBe('3.1.0');
      const routes = routesOf(app);
      // A route neither Kratos nor we describe fails here, by name.
      expect(routes.filter((r) => !r.documented && !kratos.has(r.key)).map((r) => r.key)).toEqual([]);
      expect(documentOperations(doc)).toEqual(
        routes
          .filter((r) => r.documented)
          .map((r) => r.key)
          .sort(),
      );
      // Ours describes what Kratos does not (the document itself aside).
      const overlap = documentOperations(doc).filter((k) => kratos.has(k));
      expect(overlap).toEqual([]);
    }
    expect(documentOperations(adminDoc)).toContain('GET /admin/security-events');
    expect(documentOperations(publicDoc)).toContain('GET /self-service/methods/oidc/callback/{}');
  });

  it('the validator refuses an answer of the wrong shape', () => {
    expect(
      servedOpenApiErrors(adminDoc, '/admin/identities/{id}/sign-in', 'get', 200, {
        lockout: { locked: 'no' },
      }),
    ).not.toEqual([]);
  });

  it('admin additions answer as documented', async () => {
    const id = await createUser(h, `openapi-${randomUUID()}@example.test`);
    const admin = (method: string, path: string, json?: unknown) =>
      call(adminDoc, h.adminUrl, method, path, json);
    expect((await admin('GET', `/admin/identities/${id}/sign-in`)).status).toBe(200);
    expect((await admin('GET', `/admin/identities/${randomUUID()}/sign-in`)).status).toBe(404);
    expect((await admin('POST', '/admin/lockouts/reset', { identifier: 'nobody@example.test' })).status).toBe(
      204,
    );
    expect((await admin('POST', '/admin/lockouts/reset', {})).status).toBe(400);
    const events = await admin('GET', `/admin/security-events?subject_id=${id}`);
    expect(events.status).toBe(200);
    // Without subject_id it is the operator's feed of every event (cursor form), documented too.
    expect((await admin('GET', '/admin/security-events?limit=5')).status).toBe(200);
    expect((await admin('GET', '/admin/security-events?after=garbage')).status).toBe(400);
    expect((await admin('POST', `/admin/identities/${id}/reclaim`)).status).toBe(200);
    expect((await admin('DELETE', `/admin/identities/${id}/recovery-flows`)).status).toBe(204);
    expect(
      (
        await admin(
          'DELETE',
          `/admin/oidc/links?organisation_id=${randomUUID()}&issuer=https://idp.example.test`,
        )
      ).status,
    ).toBe(200);
    expect((await admin('GET', '/admin/oidc/link-repairs')).status).toBe(200);
  });

  it('public additions answer as documented', async () => {
    const settings = await call(publicDoc, h.publicUrl, 'GET', '/self-service/settings?flow=nope');
    expect([303, 404]).toContain(settings.status);
  });
});
