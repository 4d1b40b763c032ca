import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { escapeHtml, sendPage } from './html.ts';

/**
 * A third party's web app, as a newcomer would write one: a confidential client (a secret, the
 * authorization code grant with PKCE) on `openid-client`, registered through the authorization
 * server's admin client API when it starts. "Sign in with the platform" sends the person through
 * sign-in and the consent screen (the app is not first-party, so a person must allow it), and the
 * page then shows the ID token's claims and the userinfo answer.
 */

export const DEMO_APP_CLIENT_ID = 'demo-third-party-app';
const NAME = 'Demo third-party app';
/** Sign-ins in progress kept at most (the oldest dropped first). */
const PENDING_MAX = 1000;

export interface DemoAppOptions {
  port: number;
  host?: string;
  /** Browser-facing URL of this app (default: http://localhost:<port>). */
  publicUrl?: string;
  /** The authorization server's issuer (its public URL). */
  issuer: string;
  /** The authorization server's admin API, where the app registers itself. */
  oauth2AdminUrl: string;
  oauth2AdminKey?: string | undefined;
}

/** Creates the client, or replaces it with a new secret when it exists (each start has its own secret). */
async function register(options: DemoAppOptions, redirectUri: string, origin: string): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  const document = {
    client_id: DEMO_APP_CLIENT_ID,
    client_name: NAME,
    client_secret: secret,
    client_uri: origin,
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: [`${origin}/`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    scope: 'openid',
    token_endpoint_auth_method: 'client_secret_basic',
  };
  const headers = { 'content-type': 'application/json', ...adminAuthHeaders(options.oauth2AdminKey) };
  const base = `${options.oauth2AdminUrl}/admin/clients`;
  let res = await fetch(base, { method: 'POST', headers, body: JSON.stringify(document) });
  if (res.status === 409) {
    res = await fetch(`${base}/${DEMO_APP_CLIENT_ID}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify(document),
    });
  }
  if (res.status !== 200 && res.status !== 201) {
    throw new Error(`the demo app could not register its client: ${res.status}`);
  }
  return secret;
}

export async function startDemoApp(
  options: DemoAppOptions,
): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  // Known once the app listens (port 0 picks a free one).
  let url = '';
  let redirectUri = '';
  let config: Promise<oidc.Configuration> | undefined;
  /** Registered and discovered at the first sign-in (the authorization server may start after this app). */
  const configuration = () => {
    config ??= register(options, redirectUri, url)
      .then((secret) =>
        oidc.discovery(new URL(options.issuer), DEMO_APP_CLIENT_ID, secret, undefined, {
          execute: new URL(options.issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        }),
      )
      .catch((error: unknown) => {
        config = undefined;
        throw error;
      });
    return config;
  };
  const pending = new Map<string, string>();

  app.get('/', async (_request, reply) =>
    sendPage(
      reply,
      NAME,
      `<div class="card"><h1>${NAME}</h1><p>An application of another company that lets you sign in with your platform account.</p><p><a href="/login">Sign in with the platform</a></p></div>`,
    ),
  );

  app.get('/login', async (_request, reply) => {
    const c = await configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    if (pending.size >= PENDING_MAX) pending.delete(pending.keys().next().value!);
    pending.set(state, verifier);
    const target = oidc.buildAuthorizationUrl(c, {
      redirect_uri: redirectUri,
      scope: 'openid',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return reply.redirect(target.href, 303);
  });

  app.get('/callback', async (request, reply) => {
    const current = new URL(request.url, url);
    const state = current.searchParams.get('state') ?? '';
    const verifier = pending.get(state);
    pending.delete(state);
    const denied = current.searchParams.get('error');
    if (verifier === undefined || denied) {
      return sendPage(
        reply.status(denied ? 403 : 400),
        NAME,
        `<div class="card"><h1>Not signed in</h1><p>${escapeHtml(denied ?? 'This sign-in is unknown or was already used.')}</p><p><a href="/">Back</a></p></div>`,
      );
    }
    const c = await configuration();
    const tokens = await oidc.authorizationCodeGrant(c, current, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the authorization server sent no ID token');
    const userinfo = await oidc.fetchUserInfo(c, tokens.access_token, claims.sub);
    return sendPage(
      reply,
      NAME,
      `<h1>Signed in</h1><p>The platform told ${NAME} who you are.</p><h2>ID token claims</h2><pre data-testid="id-token-claims">${escapeHtml(JSON.stringify(claims, null, 2))}</pre><h2>Userinfo</h2><pre data-testid="userinfo">${escapeHtml(JSON.stringify(userinfo, null, 2))}</pre><p><a href="/">Home</a></p>`,
    );
  });

  await app.listen({ port: options.port, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  url = (options.publicUrl ?? `http://localhost:${port}`).replace(/\/$/, '');
  redirectUri = `${url}/callback`;
  return { url, app, close: () => app.close() };
}
