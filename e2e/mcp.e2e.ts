import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssistantAuth } from '../services/agent/test/assistant-auth.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { submitPassword } from './journeys.ts';

// An AI assistant connects to the agent service's MCP endpoint with the official MCP SDK's client
// and its own OAuth support: it reads the protected resource metadata and the authorization
// server's, registers itself, and sends the person to sign in; the person approves in Chromium on
// the consent screen that names the assistant; the tool then answers who that person is.

const ASSISTANT_NAME = 'Desk Assistant';

/** The assistant's loopback redirect: receives the authorization code, as a desktop assistant does. */
function callbackServer() {
  let server: Server | undefined;
  let received: (url: URL) => void = () => undefined;
  const hit = new Promise<URL>((resolve) => (received = resolve));
  return {
    hit,
    async start(): Promise<string> {
      server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        if (url.pathname === '/callback') received(url);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('You can return to your assistant.');
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    },
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}

describe('connect an AI assistant (MCP)', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  const callback = callbackServer();
  let redirect: string;
  beforeAll(async () => {
    redirect = await callback.start();
  });
  afterAll(async () => {
    await callback.close();
  });

  it("the MCP SDK's client registers, the person signs in and allows it, and the tool answers who they are", async () => {
    const user = await createUser(urls, { role: 'org-admin' });
    const mcpUrl = new URL(`${urls.agent}/mcp`);
    const auth = new AssistantAuth(ASSISTANT_NAME, redirect);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth });
    await expect(new Client({ name: 'desk-assistant', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    expect(auth.info?.client_id).toEqual(expect.any(String));
    const authorizationUrl = auth.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(new URL(urls.oauth2Public).origin);
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.toString());

    const { context, page } = await browser.newPage();
    await page.goto(authorizationUrl.toString());
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await submitPassword(page, user);

    // The consent screen names the assistant; the person allows it.
    const allow = page.getByRole('button', { name: 'Allow' });
    await allow.waitFor({ timeout: 30_000 });
    await page.getByText(ASSISTANT_NAME).first().waitFor();
    await allow.click();

    const returned = await callback.hit;
    expect(returned.searchParams.get('error')).toBeNull();
    await first.finishAuth(returned.searchParams.get('code')!);
    await context.close();

    const client = new Client({ name: 'desk-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toMatchObject({
      subject: user.identityId,
      email: user.email,
      name: 'Test Journey',
      role: 'org-admin',
      client: auth.info!.client_id,
    });
    await client.close();
  });
});
