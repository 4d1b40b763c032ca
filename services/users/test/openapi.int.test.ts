import { registeredRoutes } from '@acme/service-kit/openapi';
import {
  documentedPath,
  documentOperations,
  operationKey,
  servedOpenApiErrors,
} from '@acme/test-kit/openapi';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type JsonAnswer } from './harness.ts';
import { startScimStack, type ScimStack } from './scim/scim-harness.ts';
import { idpMetadata } from './saml-fixtures.ts';
import { consoleSsoSchema, ssoConnectionReportSchema } from '@acme/users-contract/console-sso';
import { trustedNetworksSchema } from '@acme/users-contract/networks';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The user service's two OpenAPI documents (`GET /openapi.json` on the public and the operator
 * listener), generated from the schemas the routes validate with: every route is in its listener's
 * document, and real answers of the console, SCIM, sign-in, Microsoft 365 and operator routes
 * conform to it.
 */

let stack: ScimStack;
let publicDoc: any;
let adminDoc: any;
const org = () => `/console/organisations/${stack.organisationId}`;

beforeAll(async () => {
  stack = await startScimStack('openapi.test');
  publicDoc = (await http(`${stack.svc.publicUrl}/openapi.json`)).body;
  adminDoc = (await http(`${stack.svc.adminUrl}/openapi.json`)).body;
});
afterAll(async () => {
  await stack?.close();
});

/** Checks one real answer against the document of the listener that gave it. */
function conforms(doc: any, method: string, url: string, answer: JsonAnswer, contentType?: string) {
  const pathname = new URL(url, 'http://x').pathname;
  const template = documentedPath(doc, pathname);
  expect(template, `${method} ${pathname} is in the document`).toBeDefined();
  const type = contentType ?? answer.headers.get('content-type')?.split(';')[0] ?? 'application/json';
  expect(
    servedOpenApiErrors(doc, template!, method, answer.status, answer.body, type),
    `${method} ${pathname} ${answer.status}`,
  ).toEqual([]);
}

async function consoleCall(method: string, path: string, json?: unknown, token = stack.adminToken) {
  const answer = await stack.call(token, method, path, json);
  conforms(publicDoc, method, path, answer);
  return answer;
}

async function adminCall(method: string, path: string, json?: unknown) {
  const answer = await http(`${stack.svc.adminUrl}${path}`, {
    method,
    ...(json === undefined ? {} : { json }),
  });
  conforms(adminDoc, method, path, answer);
  return answer;
}

async function publicCall(method: string, path: string, init: RequestInit & { json?: unknown } = {}) {
  const answer = await http(`${stack.svc.publicUrl}${path}`, { method, ...init });
  conforms(publicDoc, method, path, answer);
  return answer;
}

function routes(app: FastifyInstance): { all: string[]; undocumented: string[] } {
  const list = registeredRoutes(app);
  return {
    all: list.map((r) => operationKey(r.method, r.url)).sort(),
    undocumented: list.filter((r) => !r.schema).map((r) => `${r.method} ${r.url}`),
  };
}

describe('user service OpenAPI documents', () => {
  it('each listener serves an OpenAPI 3.1 document that lists every one of its routes', () => {
    for (const [doc, app] of [
      [publicDoc, stack.svc.app.public],
      [adminDoc, stack.svc.app.admin],
    ] as const) {
      expect(doc.openapi).toBe('3.1.0');
      const { all, undocumented } = routes(app);
      // A route added without `openApi({...})` fails here, by name.
      expect(undocumented).toEqual([]);
      expect(documentOperations(doc)).toEqual(all);
    }
    expect(documentOperations(publicDoc)).toContain('GET /console/organisations/{}/members');
    expect(documentOperations(publicDoc)).toContain('PATCH /scim/v2/Users/{}');
    expect(documentOperations(adminDoc)).toContain('POST /admin/users');
    expect(documentOperations(publicDoc)).not.toContain('POST /admin/users');
  });

  it('the validator refuses an answer of the wrong shape', () => {
    const template = '/console/organisations/{organisationId}/members';
    const members = [{ id: 'x', email: 'a@b', role: 'owner', managedBy: 'console' }];
    expect(servedOpenApiErrors(publicDoc, template, 'get', 200, { members, total: 1 })).not.toEqual([]);
    expect(servedOpenApiErrors(publicDoc, template, 'get', 404, { errorCode: 1 })).not.toEqual([]);
  });

  it('console answers conform: members, invitations, API clients, settings, events, SSO and SCIM sections', async () => {
    const me = await consoleCall('GET', '/console/me');
    expect(me.status).toBe(200);
    const member = await stack.newUser(stack.organisationId, stack.domain, 'member');
    expect((await consoleCall('GET', `${org()}/members?pageSize=5`)).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/members/${member.id}`)).status).toBe(200);
    expect((await consoleCall('POST', `${org()}/members/${member.id}/role`, { role: 'admin' })).status).toBe(
      200,
    );
    expect((await consoleCall('POST', `${org()}/members/${member.id}/deactivate`)).status).toBe(200);
    expect((await consoleCall('POST', `${org()}/members/${member.id}/reactivate`)).status).toBe(200);
    expect((await consoleCall('POST', `${org()}/members/${member.id}/unlock`)).status).toBe(204);

    const invited = await consoleCall('POST', `${org()}/invitations`, {
      email: `invitee@${stack.domain}`,
      firstName: 'In',
      lastName: 'Vitee',
      role: 'member',
    });
    expect(invited.status).toBe(201);
    expect((await consoleCall('GET', `${org()}/invitations`)).status).toBe(200);
    expect((await consoleCall('POST', `${org()}/invitations/${invited.body.id}/revoke`)).status).toBe(200);

    // An API client gets scope groups its creator holds.
    const held = await adminCall('PATCH', `/admin/users/${me.body.userId}`, { scopeGroups: ['research'] });
    expect(held.status).toBe(200);
    const client = await consoleCall('POST', `${org()}/api-clients`, {
      name: 'CI',
      scopeGroups: ['research'],
    });
    expect(client.status).toBe(201);
    expect((await consoleCall('GET', `${org()}/api-clients`)).status).toBe(200);
    expect((await consoleCall('POST', `${org()}/api-clients/${client.body.id}/revoke`)).status).toBe(200);

    expect((await consoleCall('GET', `${org()}/subscription`)).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/self-signup`)).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/event-retention`)).status).toBe(200);
    expect((await consoleCall('PUT', `${org()}/event-retention`, { retentionDays: 30 })).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/trusted-networks`)).status).toBe(200);
    expect((await consoleCall('PUT', `${org()}/trusted-networks`, { ranges: [] })).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/sso`)).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/scim/tokens`)).status).toBe(200);
    expect((await consoleCall('GET', `${org()}/scim/settings`)).status).toBe(200);
    const mapped = await consoleCall('PUT', `${org()}/scim/settings`, {
      groupMappings: [{ group: 'Admins', role: 'org-admin', scopeGroups: [] }],
    });
    expect(mapped.status).toBe(200);

    const events = await consoleCall('GET', `${org()}/events?limit=5`);
    expect(events.status).toBe(200);
    expect(events.body.events.length).toBeGreaterThan(0);
    const csv = await consoleCall('GET', `${org()}/events.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);

    // Refusals answer the documented error body.
    expect((await consoleCall('GET', '/console/me', undefined, 'not-a-token')).status).toBe(401);
    expect((await consoleCall('POST', `${org()}/members/${member.id}/role`, { role: 'owner' })).status).toBe(
      400,
    );
    expect((await consoleCall('GET', `${org()}/members/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("the console's SSO and trusted networks routes validate with the contract's schemas, which the document carries", async () => {
    // Requests and answers, accepted and refused, conform to the document.
    const saml = await consoleCall('PUT', `${org()}/sso`, {
      protocol: 'saml',
      metadataXml: idpMetadata(),
      jit: true,
      enforce: false,
    });
    expect(saml.status, JSON.stringify(saml.body)).toBe(200);
    expect(consoleSsoSchema.parse(saml.body).provider?.protocol).toBe('saml');
    const tested = await consoleCall('POST', `${org()}/sso/test-connection`, {
      protocol: 'saml',
      metadataXml: idpMetadata(),
    });
    expect(tested.status).toBe(200);
    expect(ssoConnectionReportSchema.parse(tested.body).checks[0]!.check).toBe('metadata');
    for (const bad of [
      { protocol: 'saml', jit: true, enforce: false },
      {
        protocol: 'saml',
        metadataXml: idpMetadata(),
        metadataUrl: 'https://idp.example/m',
        jit: true,
        enforce: false,
      },
      { issuer: 'https://idp.example?x=1', clientId: 'c', scopes: ['openid'], jit: true, enforce: false },
      { issuer: 'https://idp.example', clientId: 'c', scopes: ['email'], jit: true, enforce: false },
      { protocol: 'ldap' },
    ]) {
      const refused = await consoleCall('PUT', `${org()}/sso`, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.errorCode).toBe('INVALID_REQUEST');
    }
    expect((await consoleCall('DELETE', `${org()}/sso`)).status).toBe(204);

    for (const bad of [{ ranges: ['not a range'] }, { ranges: 'x' }, { ranges: [], extra: 1 }, {}]) {
      const refused = await consoleCall('PUT', `${org()}/trusted-networks`, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.errorCode).toBe('INVALID_REQUEST');
    }
    // Ranges that hold the caller's loopback address (else the next calls are refused), each once.
    const set = await consoleCall('PUT', `${org()}/trusted-networks`, {
      ranges: ['127.0.0.0/8', '::1/128', '127.0.0.0/8'],
      confirmLockout: true,
    });
    expect(set.status).toBe(200);
    expect(trustedNetworksSchema.parse(set.body).ranges).toEqual(['127.0.0.0/8', '::1/128']);
    expect((await consoleCall('PUT', `${org()}/trusted-networks`, { ranges: [] })).status).toBe(200);

    // The document's request bodies and answers are the contract's shapes.
    const path = (p: string) => publicDoc.paths[`/console/organisations/{organisationId}${p}`];
    const text = (value: unknown) => JSON.stringify(value);
    const ssoBody = text(path('/sso').put.requestBody);
    for (const field of [
      'issuer',
      'clientId',
      'clientSecret',
      'scopes',
      'metadataUrl',
      'metadataXml',
      'enforce',
    ])
      expect(ssoBody).toContain(`"${field}"`);
    for (const field of ['redirectUris', 'serviceProvider', 'idpEntityId', 'certificates'])
      expect(text(path('/sso').get.responses[200])).toContain(`"${field}"`);
    expect(text(path('/sso/test-connection').post.responses[200])).toContain('"signing_certificate"');
    expect(text(path('/sso/test-sign-in/complete').post.responses[200])).toContain('"domainMatches"');
    expect(text(path('/trusted-networks').put.requestBody)).toContain('"confirmLockout"');
    expect(text(path('/trusted-networks').get.responses[200])).toContain('"yourAddress"');
  });

  it('SCIM answers conform, in SCIM media type and error schema', async () => {
    const check = async (method: string, path: string, body?: unknown) => {
      const answer = await stack.scim(method, path, body);
      conforms(publicDoc, method, `/scim/v2${path}`, answer);
      return answer;
    };
    expect((await check('GET', '/ServiceProviderConfig')).status).toBe(200);
    expect((await check('GET', '/ResourceTypes')).status).toBe(200);
    expect((await check('GET', '/Schemas')).status).toBe(200);
    const user = await check('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `scim.person@${stack.domain}`,
      externalId: 'ext-1',
      name: { givenName: 'Scim', familyName: 'Person' },
      active: true,
    });
    expect(user.status).toBe(201);
    expect((await check('GET', `/Users/${user.body.id}`)).status).toBe(200);
    expect((await check('GET', '/Users?count=5')).status).toBe(200);
    const patched = await check('PATCH', `/Users/${user.body.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Scimmed' }],
    });
    expect(patched.status).toBe(200);
    const group = await check('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Admins',
      members: [{ value: user.body.id }],
    });
    expect(group.status).toBe(201);
    expect((await check('GET', '/Groups')).status).toBe(200);
    expect((await check('DELETE', `/Groups/${group.body.id}`)).status).toBe(204);
    const missing = await check('GET', `/Users/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  });

  it('sign-in, terms, account and Microsoft 365 routes on the public listener conform', async () => {
    expect(
      (await publicCall('GET', `/login/config?emailAddress=${encodeURIComponent(`a@${stack.domain}`)}`))
        .status,
    ).toBe(200);
    expect((await publicCall('GET', '/terms/current')).status).toBe(200);
    expect((await publicCall('GET', '/invitations/status?flow=nope')).status).toBe(404);
    expect((await publicCall('GET', '/me/account')).status).toBe(401);
    expect((await publicCall('POST', '/m365/login', { json: {} })).status).toBe(401);
    expect((await publicCall('POST', '/login/consent', { json: {} })).status).toBe(400);
    expect((await publicCall('GET', '/health/alive')).status).toBe(200);
  });

  it('operator routes conform', async () => {
    expect((await adminCall('GET', '/admin/organisations')).status).toBe(200);
    expect((await adminCall('GET', `/admin/organisations/${stack.organisationId}`)).status).toBe(200);
    const users = await adminCall('GET', `/admin/users?organisationId=${stack.organisationId}`);
    expect(users.status).toBe(200);
    const someone = (users.body as any).users[0].id as string;
    expect((await adminCall('GET', `/admin/users/${someone}`)).status).toBe(200);
    expect((await adminCall('PATCH', `/admin/users/${someone}`, { role: 'admin' })).status).toBe(200);
    expect((await adminCall('GET', `/admin/invitations?organisationId=${stack.organisationId}`)).status).toBe(
      200,
    );
    expect((await adminCall('GET', `/admin/api-clients?organisationId=${stack.organisationId}`)).status).toBe(
      200,
    );
    expect((await adminCall('GET', '/admin/terms/acceptances?format=json')).status).toBe(200);
    const csv = await adminCall('GET', '/admin/terms/acceptances?format=csv');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect((await adminCall('GET', `/admin/organisations/${stack.organisationId}/self-signup`)).status).toBe(
      200,
    );
    expect((await adminCall('GET', '/admin/signup')).status).toBe(200);
    expect((await adminCall('GET', `/admin/sso/domains/${stack.domain}`)).status).toBe(200);
    expect((await adminCall('GET', '/admin/m365/org-admin-review')).status).toBe(200);
    expect(
      (await adminCall('POST', '/admin/trusted-networks/check', { organisationId: stack.organisationId }))
        .status,
    ).toBe(204);
    expect((await adminCall('GET', `/admin/users/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await adminCall('POST', '/admin/users', { email: 'not-an-address' })).status).toBe(400);
  });
});
