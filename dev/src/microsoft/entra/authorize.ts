import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, sendPage } from '../../html.ts';
import {
  findPerson,
  findPersonById,
  type DirectoryTenant,
  type DirectoryUser,
  type EntraApp,
} from '../directory.ts';
import {
  boundedSet,
  clientInfo,
  knownPathTenant,
  findApp,
  sameSecret,
  SESSION_COOKIE,
  str,
  tenantForPath,
  type EntraCore,
  type SignInRequest,
} from './core.ts';
import { EntraError, errorPage, unknownClient } from './errors.ts';

/**
 * The authorize endpoint as MSAL drives it (code flow with PKCE, `client_info`, fragment or query
 * response mode, `prompt=none` from the session cookie), the sign-in page, and logout.
 */

const SIGN_IN_TTL_MS = 15 * 60_000;
const CODE_TTL_MS = 10 * 60_000;

function redirectAllowed(app: EntraApp, redirectUri: string): boolean {
  const url = URL.parse(redirectUri);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hash) return false;
  return app.redirectOrigins.includes(url.origin);
}

function responseUrl(request: SignInRequest, params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, v);
  if (request.state !== undefined) search.set('state', request.state);
  const url = new URL(request.redirectUri);
  if (request.responseMode === 'query') {
    for (const [k, v] of search) url.searchParams.set(k, v);
    return url.toString();
  }
  return `${url.toString()}#${search.toString()}`;
}

/** Issues a code for the signed-in user and answers the application with it. */
function codeResponse(
  core: EntraCore,
  request: SignInRequest,
  tenant: DirectoryTenant,
  user: DirectoryUser,
): string {
  const code = `1.AAAA${randomBytes(40).toString('base64url')}`;
  boundedSet(core.codes, code, {
    clientId: request.app.clientId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    nonce: request.nonce,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    tenantId: tenant.tenantId,
    objectId: user.objectId,
    expiresAt: core.clock.now().getTime() + CODE_TTL_MS,
  });
  return responseUrl(request, { code, client_info: clientInfo(tenant, user), session_state: randomUUID() });
}

function signInPage(
  reply: FastifyReply,
  id: string,
  request: SignInRequest,
  email: string,
  error?: string,
): FastifyReply {
  return sendPage(
    reply,
    'Sign in to your account',
    `<header>Microsoft (development stand-in)</header>
<main><div class="card">
<h1>Sign in</h1>
<p class="muted">to continue to ${escapeHtml(request.app.displayName)}</p>
${error ? `<p id="error" role="alert" style="color:#cf222e">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/${escapeHtml(encodeURIComponent(request.pathTenant))}/oauth2/v2.0/authorize">
<input type="hidden" name="ctx" value="${escapeHtml(id)}">
<label for="email">Email</label>
<input type="text" id="email" name="email" autocomplete="username" value="${escapeHtml(email)}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" style="width:100%;box-sizing:border-box;padding:6px 8px;font-size:14px">
<div>
<button type="submit" name="action" value="signin" class="primary">Sign in</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</div>
</form>
</div></main>`,
  );
}

function sessionId(request: FastifyRequest): string | undefined {
  const cookie = request.headers.cookie ?? '';
  return new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`).exec(cookie)?.[1];
}

function readSession(core: EntraCore, request: FastifyRequest) {
  const id = sessionId(request);
  const session = id ? core.sessions.get(id) : undefined;
  return session ? findPersonById(core.directory, session.tenantId, session.objectId) : undefined;
}

/** Checks the tenant, client and redirect URI; returns the sign-in request or the error to show. */
function parseAuthorize(
  core: EntraCore,
  pathTenant: string,
  q: Record<string, unknown>,
): SignInRequest | EntraError {
  if (!knownPathTenant(core, pathTenant)) {
    return new EntraError('invalid_request', 90002, `Tenant '${pathTenant}' not found.`);
  }
  const app = findApp(core, q.client_id);
  if (!app) return unknownClient(str(q.client_id));
  const redirectUri = str(q.redirect_uri);
  if (!redirectUri || !redirectAllowed(app, redirectUri)) {
    return new EntraError(
      'invalid_request',
      50011,
      `The redirect URI '${redirectUri ?? ''}' specified in the request does not match the redirect URIs configured for the application '${app.clientId}'.`,
    );
  }
  return {
    app,
    pathTenant,
    redirectUri,
    responseMode: q.response_mode === 'query' ? 'query' : 'fragment',
    state: str(q.state),
    nonce: str(q.nonce),
    scopes: (str(q.scope) ?? 'openid').split(' ').filter(Boolean),
    codeChallenge: str(q.code_challenge),
    codeChallengeMethod: str(q.code_challenge_method),
    loginHint: str(q.login_hint),
    expiresAt: core.clock.now().getTime() + SIGN_IN_TTL_MS,
  };
}

async function authorizeGet(core: EntraCore, request: FastifyRequest, reply: FastifyReply) {
  const { tenant: pathTenant } = request.params as { tenant: string };
  const q = (request.query ?? {}) as Record<string, unknown>;
  const signIn = parseAuthorize(core, pathTenant, q);
  if (signIn instanceof EntraError) return errorPage(reply, signIn);
  const fail = (err: EntraError) =>
    reply.redirect(
      responseUrl(signIn, {
        error: err.error,
        error_description: `AADSTS${err.code}: ${err.description}`,
        ...(err.suberror ? { error_subcode: err.suberror } : {}),
      }),
    );
  if (q.response_type !== 'code') {
    return fail(
      new EntraError('unsupported_response_type', 700054, "response_type 'code' is required for this flow."),
    );
  }
  if (signIn.codeChallenge && signIn.codeChallengeMethod !== 'S256') {
    return fail(new EntraError('invalid_request', 50148, 'The code_challenge_method must be S256.'));
  }
  const session = readSession(core, request);
  if (q.prompt === 'none') {
    const pathTenantRecord = tenantForPath(core, pathTenant);
    if (
      !session ||
      (signIn.loginHint && signIn.loginHint.toLowerCase() !== session.user.email) ||
      (pathTenantRecord && pathTenantRecord.tenantId !== session.tenant.tenantId)
    ) {
      return fail(
        new EntraError(
          'login_required',
          50058,
          'A silent sign-in request was sent but no user is signed in.',
          400,
        ),
      );
    }
    return reply.redirect(codeResponse(core, signIn, session.tenant, session.user));
  }
  const id = randomBytes(18).toString('base64url');
  boundedSet(core.signIns, id, signIn);
  return signInPage(reply, id, signIn, signIn.loginHint ?? session?.user.email ?? '');
}

async function authorizePost(core: EntraCore, request: FastifyRequest, reply: FastifyReply) {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const id = str(body.ctx);
  const signIn = id ? core.signIns.get(id) : undefined;
  if (!id || !signIn || signIn.expiresAt < core.clock.now().getTime()) {
    return errorPage(
      reply,
      new EntraError('invalid_request', 50089, 'Flow token expired: sign in again from the application.'),
    );
  }
  if (body.action === 'cancel') {
    core.signIns.delete(id);
    return reply.redirect(
      responseUrl(signIn, {
        error: 'access_denied',
        error_subcode: 'cancel',
        error_description: 'AADSTS65004: User declined to consent to access the app.',
      }),
      302,
    );
  }
  const email = (str(body.email) ?? '').trim().toLowerCase();
  const password = typeof body.password === 'string' ? body.password : '';
  const person = email ? findPerson(core.directory, email) : undefined;
  if (!person) {
    return signInPage(
      reply,
      id,
      signIn,
      email,
      "AADSTS50034: We couldn't find an account with that username.",
    );
  }
  if (!sameSecret(password, person.user.password)) {
    return signInPage(reply, id, signIn, email, 'AADSTS50126: Your account or password is incorrect.');
  }
  const pathTenantRecord = tenantForPath(core, signIn.pathTenant);
  if (pathTenantRecord && pathTenantRecord.tenantId !== person.tenant.tenantId) {
    return signInPage(
      reply,
      id,
      signIn,
      email,
      `AADSTS50020: User account '${email}' from identity provider does not exist in tenant '${pathTenantRecord.displayName}'.`,
    );
  }
  core.signIns.delete(id);
  const newSession = randomBytes(24).toString('base64url');
  boundedSet(core.sessions, newSession, { tenantId: person.tenant.tenantId, objectId: person.user.objectId });
  reply.header('set-cookie', `${SESSION_COOKIE}=${newSession}; Path=/; HttpOnly; SameSite=Lax`);
  return reply.redirect(codeResponse(core, signIn, person.tenant, person.user), 302);
}

function logout(core: EntraCore, request: FastifyRequest, reply: FastifyReply) {
  const q = (request.query ?? {}) as Record<string, unknown>;
  const id = sessionId(request);
  if (id) core.sessions.delete(id);
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
  const target = str(q.post_logout_redirect_uri);
  if (target && core.directory.apps.some((app) => redirectAllowed(app, target))) {
    const url = new URL(target);
    if (typeof q.state === 'string') url.searchParams.set('state', q.state);
    return reply.redirect(url.toString(), 302);
  }
  return sendPage(
    reply,
    'Sign out',
    `<header>Microsoft (development stand-in)</header><main><div class="card"><h1>You signed out of your account</h1><p>It's a good idea to close all browser windows.</p></div></main>`,
  );
}

export function registerAuthorize(server: FastifyInstance, core: EntraCore): void {
  server.get('/:tenant/oauth2/v2.0/authorize', (request, reply) => authorizeGet(core, request, reply));
  server.post('/:tenant/oauth2/v2.0/authorize', (request, reply) => authorizePost(core, request, reply));
  server.get('/:tenant/oauth2/v2.0/logout', (request, reply) => logout(core, request, reply));
  server.post('/:tenant/oauth2/v2.0/logout', (request, reply) => logout(core, request, reply));
}
