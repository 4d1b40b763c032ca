import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/seed.ts';
import { platformAuthorizeUrl } from './auth-stack.ts';
import { Jar } from './jar.ts';
import {
  exchangeCode,
  passwordLogin,
  startRealStack,
  tokenRequest,
  whoami as sessionOf,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/**
 * Resource indicators (RFC 8707): a token an assistant got for the MCP server carries that server
 * as its audience, and the platform's own APIs (`/me/*`, the console) refuse it.
 */

const APP_ORIGIN = 'http://localhost:4000';
const MCP = 'http://localhost:4466/mcp';
/** The assistant's loopback callback (on the app's origin here, where the test's browser stops). */
const ASSISTANT_CALLBACK = `${APP_ORIGIN}/assistant/callback`;

describe('a token for the MCP server at the platform APIs', () => {
  let stack: RealStack;
  let urls: RealStackUrls;

  beforeAll(async () => {
    stack = await startRealStack({
      appOrigin: APP_ORIGIN,
      oauth2KnowsUsers: false,
      oauth2Env: { OAUTH2_RESOURCE_SERVERS: MCP },
      usersEnv: (auth) => ({ IDENTITY_PUBLIC_URL: auth.identityPublic }),
    });
    urls = stack.urls;
    await seedDemo(urls.usersAdmin);
  });
  afterAll(async () => {
    await stack.close();
  });

  /**
   * Signs Ada in through the real identity service and consent: for the platform's application, or
   * (`resource` given) for an assistant the operator registered for that resource, which she allows.
   */
  async function accessToken(resource?: string): Promise<string> {
    const jar = new Jar();
    const authorize = platformAuthorizeUrl(urls.issuer, APP_ORIGIN);
    const url = new URL(authorize.url);
    const assistant = resource ? await registerAssistant(resource) : undefined;
    if (assistant) {
      url.searchParams.set('client_id', assistant);
      url.searchParams.set('redirect_uri', ASSISTANT_CALLBACK);
      url.searchParams.set('resource', resource!);
    }
    const login = await jar.navigateToApp(url.toString());
    const submitted = await passwordLogin(
      jar,
      urls.identityPublic,
      login.searchParams.get('login_challenge')!,
      'ada@acme.test',
    );
    const session = await sessionOf(jar, urls.identityPublic);
    const consent = await jar.navigateToApp(submitted.body.redirect_browser_to);
    const accepted = await new Jar().fetch(`${urls.users}/login/consent`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN },
      json: {
        consentChallenge: consent.searchParams.get('consent_challenge')!,
        identitySessionId: session.body.id,
        ...(assistant ? { decision: 'allow' } : {}),
      },
    });
    const callback = await jar.navigateToApp(accepted.body.redirectTo);
    const token = assistant
      ? await tokenRequest(urls.issuer, {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: ASSISTANT_CALLBACK,
          code_verifier: authorize.verifier,
          client_id: assistant,
        })
      : await exchangeCode(urls.issuer, callback, authorize.verifier);
    expect(token.status).toBe(200);
    return (token.body as { access_token: string }).access_token;
  }

  /** A public client the operator registered with the MCP server as its only audience. */
  async function registerAssistant(resource: string): Promise<string> {
    const created = await fetch(`${urls.oauth2Admin}/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Desk Assistant',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [ASSISTANT_CALLBACK],
        token_endpoint_auth_method: 'none',
        audience: [resource],
      }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { client_id: string }).client_id;
  }

  const get = (path: string, token: string) =>
    fetch(`${urls.users}${path}`, { headers: { authorization: `Bearer ${token}`, origin: APP_ORIGIN } });

  it('MCP-audience token replayed at /me and the console is refused', async () => {
    const platform = await accessToken();
    expect((await get('/me/account', platform)).status).toBe(200);
    expect((await get('/console/me', platform)).status).toBe(200);

    const mcp = await accessToken(MCP);
    const claims = JSON.parse(Buffer.from(mcp.split('.')[1]!, 'base64url').toString('utf8')) as {
      aud: string[];
    };
    expect(claims.aud).toEqual([MCP]);
    for (const path of ['/me/account', '/me/connected-apps', '/console/me']) {
      const res = await get(path, mcp);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { errorCode: string }).errorCode).toBe('UNAUTHENTICATED');
    }
  });
});
