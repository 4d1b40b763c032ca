import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestDb, type Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminJson,
  CookieJar,
  location,
  navigate,
  signIn,
  startServer,
  tokenRequest,
  type TestServer,
} from '../../oauth2/test/harness.ts';
import { start } from '../src/index.ts';
import { AssistantAuth } from './assistant-auth.ts';

/**
 * The agent service's MCP endpoint behind our real authorization server: the official SDK's client
 * discovers the protected resource and authorization server metadata, registers itself, and after a
 * person's sign-in and consent calls the tool, which answers who that person is. Tokens for another
 * resource, expired ones and those of a person whose grants were ended (deactivation) are refused.
 */

const REDIRECT = 'http://127.0.0.1:33418/callback';
const ADA = {
  user: { authenticationMode: 'ory', email: 'ada@acme.test', name: 'Ada Lovelace' },
  products: ['Platform'],
  scopeGroups: [],
  role: 'org-admin',
  organisation: { id: '6f1c2a4e-0b7d-4c1e-9a55-3f0e8d2b7c11', name: 'Acme Research' },
  subscriptionStatus: 'subscribed',
};

const ASSISTANT_NAME = 'Test Assistant';

describe('MCP endpoint', () => {
  let oauth2: TestServer;
  let agentDb: Database;
  let mcpUrl: string;
  let agentUrl: string;
  let closeAgent: () => Promise<void>;

  beforeAll(async () => {
    const port = await freePort();
    agentUrl = `http://localhost:${port}`;
    mcpUrl = `${agentUrl}/mcp`;
    oauth2 = await startServer({
      env: { OAUTH2_REGISTRATION: 'loopback', OAUTH2_RESOURCE_SERVERS: mcpUrl },
    });
    agentDb = await createTestDb();
    const agent = await start({
      db: agentDb,
      logger: false,
      env: {
        AGENT_PUBLIC_PORT: String(port),
        AGENT_ADMIN_PORT: '0',
        AGENT_MANAGEMENT_PORT: '0',
        AGENT_PUBLIC_URL: agentUrl,
        OAUTH2_PUBLIC_URL: oauth2.issuer,
        OAUTH2_ADMIN_URL: oauth2.admin,
      },
    });
    closeAgent = agent.close;
  });
  afterAll(async () => {
    await closeAgent?.();
    await agentDb?.close();
    await oauth2?.close();
    await oauth2?.db.close();
  });

  /** The person signs in and consents at the authorization URL; returns the callback's code. */
  async function approve(url: URL, subject: string): Promise<string> {
    const jar = new CookieJar();
    const login = location(await navigate(jar, url.toString()));
    const loginChallenge = login.searchParams.get('login_challenge')!;
    const accepted = await adminJson(
      oauth2,
      'PUT',
      `/admin/oauth2/auth/requests/login/accept?login_challenge=${loginChallenge}`,
      { subject, remember: false, amr: ['password'] },
    );
    const consent = location(await navigate(jar, accepted.body.redirect_to as string));
    const consentChallenge = consent.searchParams.get('consent_challenge')!;
    const request = await adminJson(
      oauth2,
      'GET',
      `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
    );
    expect(request.body.requested_access_token_audience).toEqual([mcpUrl]);
    expect((request.body.client as { skip_consent: boolean }).skip_consent).toBe(false);
    const granted = await adminJson(
      oauth2,
      'PUT',
      `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
      { grant_scope: request.body.requested_scope, session: { access_token: ADA, id_token: {} } },
    );
    const callback = location(await navigate(jar, granted.body.redirect_to as string));
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    return callback.searchParams.get('code')!;
  }

  async function callWhoami(token: string) {
    return fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'whoami', arguments: {} },
      }),
    });
  }

  /** An access token for the MCP endpoint, through a client registered here. */
  async function mcpToken(subject: string, lifespan?: string) {
    const registered = await fetch(`${oauth2.publicUrl}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(new AssistantAuth(ASSISTANT_NAME, REDIRECT).clientMetadata),
    });
    const clientId = String(((await registered.json()) as { client_id: string }).client_id);
    if (lifespan) {
      const patched = await adminJson(oauth2, 'PATCH', `/admin/clients/${clientId}`, [
        { op: 'add', path: '/authorization_code_grant_access_token_lifespan', value: lifespan },
      ]);
      expect(patched.status).toBe(200);
    }
    const authorize = { client_id: clientId, redirect_uri: REDIRECT, resource: mcpUrl };
    const { callback, verifier } = await signIn(oauth2, { authorize, subject, ext: ADA });
    const tokens = await tokenRequest(oauth2, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      resource: mcpUrl,
    });
    expect(tokens.status).toBe(200);
    return String(tokens.body.access_token);
  }

  it('answers an unauthenticated call with 401 and its protected resource metadata', async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const metadataUrl = `${agentUrl}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata.resource).toBe(mcpUrl);
    expect(metadata.authorization_servers).toEqual([oauth2.issuer]);
  });

  it("the SDK's client registers, the person approves, and the tool answers who they are", async () => {
    const auth = new AssistantAuth(ASSISTANT_NAME, REDIRECT);
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth });
    await expect(new Client({ name: 'test-assistant', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    // It registered itself dynamically and was sent to our authorization endpoint for this resource.
    expect(auth.info?.client_id).toEqual(expect.any(String));
    expect(auth.authorizationUrl?.origin).toBe(oauth2.issuer);
    expect(auth.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl);

    const code = await approve(auth.authorizationUrl!, 'identity-ada');
    await first.finishAuth(code);
    const claims = JSON.parse(
      Buffer.from(auth.saved!.access_token.split('.')[1]!, 'base64url').toString('utf8'),
    ) as { aud: string[] };
    expect(claims.aud).toEqual([mcpUrl]);

    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth }));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('whoami');
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toMatchObject({
      subject: 'identity-ada',
      email: 'ada@acme.test',
      name: 'Ada Lovelace',
      role: 'org-admin',
      organisation: {
        id: '6f1c2a4e-0b7d-4c1e-9a55-3f0e8d2b7c11',
        name: 'Acme Research',
        products: ['Platform'],
        subscriptionStatus: 'subscribed',
      },
      client: auth.info!.client_id,
    });
    await client.close();
  });

  it('token for another audience (the platform APIs) is refused by the MCP endpoint', async () => {
    const { callback, verifier } = await signIn(oauth2, { subject: 'identity-ada', ext: ADA });
    const tokens = await tokenRequest(oauth2, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: 'http://localhost:4000/account/callback',
      code_verifier: verifier,
      client_id: 'platform',
    });
    const res = await callWhoami(String(tokens.body.access_token));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The same person's token for the MCP endpoint works (the refusal is the audience's).
    expect((await callWhoami(await mcpToken('identity-ada'))).status).toBe(200);
  });

  it('expired MCP token is refused', async () => {
    const token = await mcpToken('identity-ada', '1s');
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const res = await callWhoami(token);
    expect(res.status).toBe(401);
  });

  it('token of a deactivated person (grants ended) is refused at once', async () => {
    const token = await mcpToken('identity-grace');
    expect((await callWhoami(token)).status).toBe(200);
    // What deactivation does at the authorization server: every grant of the person ends.
    const revoked = await fetch(
      `${oauth2.admin}/admin/oauth2/auth/sessions/consent?subject=identity-grace&all=true`,
      { method: 'DELETE' },
    );
    expect(revoked.status).toBe(204);
    expect((await callWhoami(token)).status).toBe(401);
  });

  it('refuses malformed bearer values and GET without a token, never a 500', async () => {
    for (const authorization of ['Bearer', 'Basic abc', 'Bearer not-a-jwt', `Bearer ${'a'.repeat(9000)}`]) {
      const res = await fetch(mcpUrl, { method: 'POST', headers: { authorization } });
      expect(res.status).toBe(401);
    }
    expect((await fetch(mcpUrl)).status).toBe(401);
  });
});
