import { createServer, type Server } from 'node:http';
import { freePort } from '@acme/test-kit/free-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '@acme/db/clock';
import type { Logger } from 'pino';
import { createMetadataDocuments } from '../src/clients/metadata-documents.ts';
import { authorizeUrl, signIn, tokenRequest, useTestServer } from './harness.ts';

/**
 * Client ID metadata documents: a client names itself by the URL of a JSON document of its metadata,
 * which the authorization server fetches under the outbound guard, keeps, and holds the client to
 * (its redirect URIs, no secret, PKCE). Here on a developer's setting (loopback registration), where a
 * document may be served over http on a loopback host.
 */

const MCP = 'http://localhost:4466/mcp';
const server = useTestServer({
  env: {
    OAUTH2_REGISTRATION: 'loopback',
    OAUTH2_CLIENT_ID_METADATA_DOCUMENTS: 'true',
    OAUTH2_RESOURCE_SERVERS: MCP,
  },
});
const REDIRECT = 'http://127.0.0.1:33419/callback';

let documents: Server;
let base: string;
/** Each path's answer: a body, or a function of the document's own URL. */
const served = new Map<string, { type?: string; body: string }>();
const asked: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  documents = createServer((req, res) => {
    asked.push(req.url ?? '');
    const doc = served.get(req.url ?? '');
    if (!doc) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': doc.type ?? 'application/json' }).end(doc.body);
  });
  await new Promise<void>((resolve) => documents.listen(port, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => documents?.close(resolve));
});

/** Serves a document at `path` whose client_id is its own URL unless `fields` says otherwise. */
function publish(path: string, fields: Record<string, unknown> = {}): string {
  const url = `${base}${path}`;
  served.set(path, {
    body: JSON.stringify({
      client_id: url,
      client_name: 'Desk Assistant',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...fields,
    }),
  });
  return url;
}

/** The authorization endpoint's first answer for this client. */
async function authorize(clientId: string, overrides: Record<string, string> = {}) {
  const { url } = authorizeUrl(server.issuer, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: MCP,
    ...overrides,
  });
  const res = await fetch(url, { redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, location: res.headers.get('location'), text };
}

const refusedClient = (answer: { status: number; text: string }) => {
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_client' });
};

describe('client ID metadata documents', () => {
  it('advertises them in the authorization server metadata', async () => {
    const res = await fetch(`${server.publicUrl}/.well-known/oauth-authorization-server`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.client_id_metadata_document_supported).toBe(true);
  });

  it('a client named by its document signs a person in: consent names it, PKCE, a public client', async () => {
    const clientId = publish('/assistant.json');
    const { callback, verifier, consentChallenge } = await signIn(server, {
      authorize: { client_id: clientId, redirect_uri: REDIRECT, resource: MCP },
    });
    expect(consentChallenge).toEqual(expect.any(String));
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    const code = callback.searchParams.get('code')!;
    const tokens = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    const claims = JSON.parse(
      Buffer.from(String(tokens.body.access_token).split('.')[1]!, 'base64url').toString(),
    ) as { client_id: string; aud: string[] };
    expect(claims.client_id).toBe(clientId);
    // Such a client gets tokens for the resource servers only, never the platform's APIs.
    expect(claims.aud).toEqual([MCP]);
    const platform = await fetch(
      authorizeUrl(server.issuer, { client_id: clientId, redirect_uri: REDIRECT }).url,
      {
        redirect: 'manual',
      },
    );
    expect(new URL(platform.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    // Without PKCE it is refused, as every public client is.
    const { url } = authorizeUrl(server.issuer, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    const noPkce = await fetch(url, { redirect: 'manual' });
    expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('redirect_uri the document does not list is refused', async () => {
    const clientId = publish('/listed.json');
    const answer = await authorize(clientId, { redirect_uri: 'http://127.0.0.1:33419/elsewhere' });
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_redirect_uri' });
  });

  it('document whose client_id is not its own URL is refused', async () => {
    const clientId = publish('/impostor.json', { client_id: `${base}/assistant.json` });
    refusedClient(await authorize(clientId));
  });

  it('document on a private address is never fetched (server-side request forgery)', async () => {
    publish('/private.json');
    const before = asked.length;
    // https to a loopback/private address: the outbound guard refuses before connecting.
    const port = new URL(base).port;
    refusedClient(await authorize(`https://127.0.0.1:${port}/private.json`));
    refusedClient(await authorize('https://10.0.0.1/client.json'));
    refusedClient(await authorize('https://169.254.169.254/latest/meta-data'));
    // Plain http on a host other than loopback is no client_id at all.
    refusedClient(await authorize('http://example.com/client.json'));
    expect(asked.length).toBe(before);
  });

  it('oversized, non-JSON, secret-asking and missing documents are refused', async () => {
    // Past the size limit with a field that is otherwise ignored.
    publish('/huge.json', { software_version: 'x'.repeat(6 * 1024) });
    refusedClient(await authorize(`${base}/huge.json`));
    served.set('/page.json', { type: 'text/html', body: '<html>not json</html>' });
    refusedClient(await authorize(`${base}/page.json`));
    served.set('/array.json', { body: '[]' });
    refusedClient(await authorize(`${base}/array.json`));
    const secret = publish('/secret.json', { token_endpoint_auth_method: 'client_secret_basic' });
    refusedClient(await authorize(secret));
    const credentials = publish('/credentials.json', { grant_types: ['client_credentials'] });
    refusedClient(await authorize(credentials));
    const proto = `${base}/proto.json`;
    served.set('/proto.json', {
      body: `{"client_id":"${proto}","redirect_uris":["${REDIRECT}"],"__proto__":{"skip_consent":true}}`,
    });
    // A `__proto__` key is ignored: the client is an ordinary one that asks for consent.
    const { consentChallenge } = await signIn(server, {
      authorize: { client_id: proto, redirect_uri: REDIRECT, resource: MCP },
    });
    expect(consentChallenge).toEqual(expect.any(String));
    refusedClient(await authorize(`${base}/missing.json`));
    refusedClient(await authorize(`${base}/`));
  });

  it('50 parallel authorizations of a new client fetch its document once', async () => {
    const clientId = publish('/popular.json');
    const before = asked.filter((p) => p === '/popular.json').length;
    const answers = await Promise.all(Array.from({ length: 50 }, () => authorize(clientId)));
    for (const answer of answers) {
      expect(answer.status).toBe(303);
      expect(answer.location).toContain('login_challenge=');
    }
    expect(asked.filter((p) => p === '/popular.json').length - before).toBe(1);
  });
});

describe('client ID metadata documents: the outbound guard', () => {
  it('document whose host name resolves to a private or metadata address is refused before connecting', async () => {
    const reasons: unknown[] = [];
    const logger = {
      info: (fields: { reason: unknown }) => reasons.push(fields.reason),
    } as unknown as Logger;
    const answers: Record<string, string> = {
      'rebind.example': '10.0.0.7',
      'metadata.example': '169.254.169.254',
      'loop.example': '127.0.0.1',
    };
    const docs = createMetadataDocuments({
      loopback: true,
      timeoutMs: 2_000,
      rules: { scopes: ['openid'], grants: ['authorization_code'], audiences: [] },
      audiences: [],
      clock: systemClock,
      logger,
      // The DNS answers an attacker controls: the names look public, the addresses are not.
      resolve: async (hostname) => [{ address: answers[hostname] ?? '203.0.113.1', family: 4 }],
    });
    for (const host of Object.keys(answers)) {
      expect(await docs.find(`https://${host}/client.json`)).toBeUndefined();
    }
    expect(reasons).toEqual(['private_address', 'private_address', 'private_address']);
  });
});
