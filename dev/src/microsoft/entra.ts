import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createLocalJWKSet,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import { escapeHtml, sendPage } from '../html.ts';
import {
  findPerson,
  findPersonById,
  findTenant,
  GRAPH_APP_ID,
  GRAPH_RESOURCE_URL,
  isGuid,
  TEAMS_WEB_CLIENT_ID,
  type Directory,
  type DirectoryTenant,
  type DirectoryUser,
  type EntraApp,
} from './directory.ts';

/**
 * A Microsoft Entra ID (v2.0 endpoints) stand-in: the authorization-code flow with PKCE as MSAL
 * drives it (code in the fragment, `client_info`), refresh tokens, on-behalf-of, client
 * credentials, discovery and keys, and Microsoft's `AADSTS…` error bodies.
 */

export interface EntraOptions {
  directory: Directory;
  clock?: { now(): Date };
  /** Lifetime of access and ID tokens (3600 s, as Entra's default). */
  tokenTtlSeconds?: number;
}

interface SignInRequest {
  app: EntraApp;
  pathTenant: string;
  redirectUri: string;
  responseMode: 'fragment' | 'query';
  state?: string;
  nonce?: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: string;
  loginHint?: string;
  expiresAt: number;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  tenantId: string;
  objectId: string;
  expiresAt: number;
}

interface IssuedRefreshToken {
  clientId: string;
  tenantId: string;
  objectId: string;
  expiresAt: number;
}

const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);
const SIGN_IN_TTL_MS = 15 * 60_000;
const CODE_TTL_MS = 10 * 60_000;
const REFRESH_TTL_MS = 24 * 3600_000;
const SESSION_COOKIE = 'ESTSAUTH';
const MAX_STORED = 10_000;
/** Delegated Graph permissions that need an administrator's consent. */
const ADMIN_SCOPES = new Set(['Organization.Read.All']);
/** What `/.default` for Graph grants when consented. */
const GRAPH_DEFAULT_SCOPES = ['User.Read', 'Organization.Read.All', 'email', 'openid', 'profile'];

/** An OAuth2 error as Entra writes it. */
export class EntraError extends Error {
  constructor(
    readonly error: string,
    readonly code: number,
    readonly description: string,
    readonly status = 400,
    readonly suberror?: string,
  ) {
    super(`AADSTS${code}: ${description}`);
  }
}

function entraTimestamp(now: Date): string {
  return now
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

function entraErrorBody(err: EntraError, now: Date): Record<string, unknown> {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = entraTimestamp(now);
  return {
    error: err.error,
    error_description: `AADSTS${err.code}: ${err.description} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
    error_codes: [err.code],
    timestamp,
    trace_id: traceId,
    correlation_id: correlationId,
    ...(err.suberror ? { suberror: err.suberror } : {}),
    error_uri: `https://login.microsoftonline.com/error?code=${err.code}`,
  };
}

const b64url = (value: string) => Buffer.from(value).toString('base64url');

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

function boundedSet<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_STORED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/** One resource a scope list asks for, and the scopes on it. */
interface ResourceScopes {
  /** Audience of the access token. */
  audience: string;
  /** Short names echoed in `scope` and `scp`. */
  scopes: string[];
  isGraph: boolean;
}

export interface Entra {
  readonly directory: Directory;
  /** Base URL, set once the server listens. */
  base: string;
  readonly publicJwks: { keys: JWK[] };
  register(app: FastifyInstance): void;
  /** Signs any claims with the stand-in's key (tests use it to forge tokens deliberately). */
  sign(claims: JWTPayload, options?: { kid?: string }): Promise<string>;
  issuer(tenantId: string): string;
  /** A Teams SSO token for the app: what Teams' getAuthToken returns for the signed-in user. */
  teamsToken(clientId: string, email: string): Promise<string>;
  /** Verifies a token this stand-in issued (signature and lifetime); undefined if invalid. */
  verify(token: string): Promise<JWTPayload | undefined>;
}

export async function createEntra(options: EntraOptions): Promise<Entra> {
  const { directory } = options;
  const clock = options.clock ?? { now: () => new Date() };
  const ttl = options.tokenTtlSeconds ?? 3600;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(16).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  const publicJwks = { keys: [publicJwk] };
  const localJwks = createLocalJWKSet(publicJwks);

  const signIns = new Map<string, SignInRequest>();
  const codes = new Map<string, IssuedCode>();
  const refreshTokens = new Map<string, IssuedRefreshToken>();
  const sessions = new Map<string, { tenantId: string; objectId: string }>();

  const entra: Entra = {
    directory,
    base: '',
    publicJwks,
    register,
    sign,
    issuer,
    teamsToken,
    verify,
  };

  function issuer(tenantId: string): string {
    return `${entra.base}/${tenantId}/v2.0`;
  }

  async function sign(claims: JWTPayload, opts: { kid?: string } = {}): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: opts.kid ?? kid })
      .sign(privateKey);
  }

  async function verify(token: string): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtVerify(token, localJwks, {
        algorithms: ['RS256'],
        currentDate: clock.now(),
      });
      const tid = typeof payload.tid === 'string' ? payload.tid : '';
      if (payload.iss !== issuer(tid)) return undefined;
      return payload;
    } catch {
      return undefined;
    }
  }

  function timeClaims() {
    const now = Math.floor(clock.now().getTime() / 1000);
    return { iat: now, nbf: now, exp: now + ttl };
  }

  function userClaims(tenant: DirectoryTenant, user: DirectoryUser) {
    return {
      tid: tenant.tenantId,
      oid: user.objectId,
      name: user.displayName,
      preferred_username: user.email,
    };
  }

  /** Pairwise `sub`, as Entra's: stable per user and application. */
  function subjectFor(objectId: string, clientId: string): string {
    return createHash('sha256').update(`${objectId}:${clientId}`).digest('base64url').slice(0, 43);
  }

  function findApp(clientId: unknown): EntraApp | undefined {
    return typeof clientId === 'string' ? directory.apps.find((a) => a.clientId === clientId) : undefined;
  }

  function appByAudience(audience: string): EntraApp | undefined {
    return directory.apps.find((a) => a.clientId === audience || a.appIdUri === audience);
  }

  async function teamsToken(clientId: string, email: string): Promise<string> {
    const app = findApp(clientId);
    if (!app)
      throw new EntraError(
        'invalid_client',
        700016,
        `Application with identifier '${clientId}' was not found in the directory.`,
      );
    const person = findPerson(directory, email);
    if (!person)
      throw new EntraError('invalid_grant', 50034, 'The user account does not exist in the directory.');
    return sign({
      ver: '2.0',
      iss: issuer(person.tenant.tenantId),
      aud: app.clientId,
      azp: TEAMS_WEB_CLIENT_ID,
      azpacr: '0',
      scp: 'access_as_user',
      sub: subjectFor(person.user.objectId, app.clientId),
      ...userClaims(person.tenant, person.user),
      email: person.user.email,
      uti: randomBytes(16).toString('base64url'),
      ...timeClaims(),
    });
  }

  /** Splits requested scopes into OIDC scopes and the one resource they name. */
  function resourceOf(requested: string[], tenant: DirectoryTenant | undefined): ResourceScopes {
    const resourceScopes = requested.filter((s) => !OIDC_SCOPES.has(s));
    const byResource = new Map<string, string[]>();
    for (const scope of resourceScopes) {
      let resource = GRAPH_APP_ID;
      let name = scope;
      const slash = scope.lastIndexOf('/');
      if (slash > 0) {
        const prefix = scope.slice(0, slash);
        name = scope.slice(slash + 1);
        if (prefix === GRAPH_RESOURCE_URL || prefix === GRAPH_APP_ID) resource = GRAPH_APP_ID;
        else {
          const app = appByAudience(prefix);
          if (!app) {
            throw new EntraError(
              'invalid_resource',
              500011,
              `The resource principal named ${prefix} was not found in the tenant.`,
            );
          }
          resource = app.clientId;
        }
      }
      byResource.set(resource, [...(byResource.get(resource) ?? []), name]);
    }
    if (byResource.size > 1) {
      throw new EntraError(
        'invalid_request',
        28000,
        'Provided value for the input parameter scope is not valid because it contains more than one resource.',
      );
    }
    const [entry] = [...byResource.entries()];
    const audience = entry?.[0] ?? GRAPH_APP_ID;
    let scopes = entry?.[1] ?? ['User.Read'];
    const isGraph = audience === GRAPH_APP_ID;
    if (isGraph) {
      if (scopes.includes('.default')) scopes = GRAPH_DEFAULT_SCOPES.filter((s) => !OIDC_SCOPES.has(s));
      // Without an administrator's consent the directory permissions are not granted.
      if (tenant && !tenant.adminConsent) scopes = scopes.filter((s) => !ADMIN_SCOPES.has(s));
      for (const oidc of ['email', 'openid', 'profile']) if (requested.includes(oidc)) scopes.push(oidc);
    }
    return { audience, scopes: [...new Set(scopes)], isGraph };
  }

  async function userTokens(
    app: EntraApp,
    tenant: DirectoryTenant,
    user: DirectoryUser,
    requestedScopes: string[],
    nonce: string | undefined,
    withRefresh: boolean,
  ): Promise<Record<string, unknown>> {
    const resource = resourceOf(requestedScopes, tenant);
    const times = timeClaims();
    const accessToken = await sign({
      ver: '2.0',
      iss: issuer(tenant.tenantId),
      aud: resource.audience,
      azp: app.clientId,
      appid: app.clientId,
      idtyp: 'user',
      scp: resource.scopes.join(' '),
      sub: subjectFor(user.objectId, resource.audience),
      ...userClaims(tenant, user),
      upn: user.email,
      unique_name: user.email,
      uti: randomBytes(16).toString('base64url'),
      ...times,
    });
    const body: Record<string, unknown> = {
      token_type: 'Bearer',
      // Echo what was asked (short form), as Entra does for the consented scopes.
      scope: [...new Set(requestedScopes.filter((s) => s !== 'offline_access').map(shortScope))].join(' '),
      expires_in: ttl,
      ext_expires_in: ttl,
      access_token: accessToken,
      client_info: b64url(JSON.stringify({ uid: user.objectId, utid: tenant.tenantId })),
    };
    if (requestedScopes.includes('openid')) {
      body.id_token = await sign({
        ver: '2.0',
        iss: issuer(tenant.tenantId),
        aud: app.clientId,
        sub: subjectFor(user.objectId, app.clientId),
        ...userClaims(tenant, user),
        email: user.email,
        ...(nonce ? { nonce } : {}),
        aio: randomBytes(12).toString('base64url'),
        rh: '0.AAAA.',
        uti: randomBytes(16).toString('base64url'),
        ...times,
      });
    }
    if (withRefresh) {
      const refreshToken = `0.AAAA${randomBytes(48).toString('base64url')}`;
      boundedSet(refreshTokens, refreshToken, {
        clientId: app.clientId,
        tenantId: tenant.tenantId,
        objectId: user.objectId,
        expiresAt: clock.now().getTime() + REFRESH_TTL_MS,
      });
      body.refresh_token = refreshToken;
      body.refresh_token_expires_in = REFRESH_TTL_MS / 1000;
    }
    return body;
  }

  // ---------- HTTP ----------

  function cors(request: FastifyRequest, reply: FastifyReply): void {
    const origin = request.headers.origin;
    if (typeof origin === 'string') {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
      reply.header(
        'access-control-allow-headers',
        'Content-Type, Authorization, client-request-id, return-client-request-id, x-client-sku, x-client-ver, x-client-os, x-client-cpu, x-client-current-telemetry, x-client-last-telemetry, x-app-name, x-app-ver, x-ms-lib-capability',
      );
      reply.header('access-control-max-age', '600');
    }
  }

  function sendError(reply: FastifyReply, err: EntraError): FastifyReply {
    return reply.code(err.status).header('cache-control', 'no-store').send(entraErrorBody(err, clock.now()));
  }

  function errorPage(reply: FastifyReply, err: EntraError): FastifyReply {
    return sendPage(
      reply.code(400),
      'Sign in to your account',
      `<header>Microsoft</header>
<main><div class="card">
<h1>Sorry, but we're having trouble signing you in.</h1>
<p id="error">${escapeHtml(err.message)}</p>
</div></main>`,
    );
  }

  function knownPathTenant(tenant: string): boolean {
    if (tenant === 'organizations' || tenant === 'common') return true;
    if (isGuid(tenant)) return !!findTenant(directory, tenant);
    return directory.tenants.some((t) => t.domains.some((d) => d.name === tenant.toLowerCase()));
  }

  function tenantForPath(tenant: string): DirectoryTenant | undefined {
    if (isGuid(tenant)) return findTenant(directory, tenant);
    return directory.tenants.find((t) => t.domains.some((d) => d.name === tenant.toLowerCase()));
  }

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

  function issueCode(request: SignInRequest, tenant: DirectoryTenant, user: DirectoryUser): string {
    const code = `1.AAAA${randomBytes(40).toString('base64url')}`;
    boundedSet(codes, code, {
      clientId: request.app.clientId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      tenantId: tenant.tenantId,
      objectId: user.objectId,
      expiresAt: clock.now().getTime() + CODE_TTL_MS,
    });
    return code;
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

  function readSession(request: FastifyRequest) {
    const cookie = request.headers.cookie ?? '';
    const match = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`).exec(cookie);
    const id = match?.[1];
    const session = id ? sessions.get(id) : undefined;
    return session ? findPersonById(directory, session.tenantId, session.objectId) : undefined;
  }

  function str(value: unknown): string | undefined {
    return typeof value === 'string' && value.length > 0 && value.length <= 4096 ? value : undefined;
  }

  async function authorizeGet(request: FastifyRequest, reply: FastifyReply) {
    const { tenant: pathTenant } = request.params as { tenant: string };
    const q = (request.query ?? {}) as Record<string, unknown>;
    if (!knownPathTenant(pathTenant)) {
      return errorPage(reply, new EntraError('invalid_request', 90002, `Tenant '${pathTenant}' not found.`));
    }
    const app = findApp(q.client_id);
    if (!app) {
      return errorPage(
        reply,
        new EntraError(
          'unauthorized_client',
          700016,
          `Application with identifier '${str(q.client_id) ?? ''}' was not found in the directory.`,
        ),
      );
    }
    const redirectUri = str(q.redirect_uri);
    if (!redirectUri || !redirectAllowed(app, redirectUri)) {
      return errorPage(
        reply,
        new EntraError(
          'invalid_request',
          50011,
          `The redirect URI '${redirectUri ?? ''}' specified in the request does not match the redirect URIs configured for the application '${app.clientId}'.`,
        ),
      );
    }
    const responseMode = q.response_mode === 'query' ? 'query' : 'fragment';
    const signIn: SignInRequest = {
      app,
      pathTenant,
      redirectUri,
      responseMode,
      state: str(q.state),
      nonce: str(q.nonce),
      scopes: (str(q.scope) ?? 'openid').split(' ').filter(Boolean),
      codeChallenge: str(q.code_challenge),
      codeChallengeMethod: str(q.code_challenge_method),
      loginHint: str(q.login_hint),
      expiresAt: clock.now().getTime() + SIGN_IN_TTL_MS,
    };
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
        new EntraError(
          'unsupported_response_type',
          700054,
          "response_type 'code' is required for this flow.",
        ),
      );
    }
    if (signIn.codeChallenge && signIn.codeChallengeMethod !== 'S256') {
      return fail(new EntraError('invalid_request', 50148, 'The code_challenge_method must be S256.'));
    }
    const session = readSession(request);
    if (q.prompt === 'none') {
      const pathTenantRecord = tenantForPath(pathTenant);
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
      const code = issueCode(signIn, session.tenant, session.user);
      return reply.redirect(
        responseUrl(signIn, {
          code,
          client_info: b64url(JSON.stringify({ uid: session.user.objectId, utid: session.tenant.tenantId })),
          session_state: randomUUID(),
        }),
      );
    }
    const id = randomBytes(18).toString('base64url');
    boundedSet(signIns, id, signIn);
    return signInPage(reply, id, signIn, signIn.loginHint ?? session?.user.email ?? '');
  }

  async function authorizePost(request: FastifyRequest, reply: FastifyReply) {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const id = str(body.ctx);
    const signIn = id ? signIns.get(id) : undefined;
    if (!id || !signIn || signIn.expiresAt < clock.now().getTime()) {
      return errorPage(
        reply,
        new EntraError('invalid_request', 50089, 'Flow token expired: sign in again from the application.'),
      );
    }
    if (body.action === 'cancel') {
      signIns.delete(id);
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
    const person = email ? findPerson(directory, email) : undefined;
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
    const pathTenantRecord = tenantForPath(signIn.pathTenant);
    if (pathTenantRecord && pathTenantRecord.tenantId !== person.tenant.tenantId) {
      return signInPage(
        reply,
        id,
        signIn,
        email,
        `AADSTS50020: User account '${email}' from identity provider does not exist in tenant '${pathTenantRecord.displayName}'.`,
      );
    }
    signIns.delete(id);
    const sessionId = randomBytes(24).toString('base64url');
    boundedSet(sessions, sessionId, { tenantId: person.tenant.tenantId, objectId: person.user.objectId });
    reply.header('set-cookie', `${SESSION_COOKIE}=${sessionId}; Path=/; HttpOnly; SameSite=Lax`);
    const code = issueCode(signIn, person.tenant, person.user);
    return reply.redirect(
      responseUrl(signIn, {
        code,
        client_info: b64url(JSON.stringify({ uid: person.user.objectId, utid: person.tenant.tenantId })),
        session_state: randomUUID(),
      }),
      302,
    );
  }

  function authenticateClient(app: EntraApp, body: Record<string, unknown>, required: boolean): void {
    const secret = str(body.client_secret);
    if (secret === undefined) {
      if (!required) return;
      throw new EntraError(
        'invalid_client',
        7000218,
        "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
        401,
      );
    }
    if (!app.clientSecret || !sameSecret(secret, app.clientSecret)) {
      throw new EntraError(
        'invalid_client',
        7000215,
        'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
        401,
      );
    }
  }

  async function token(request: FastifyRequest, reply: FastifyReply) {
    cors(request, reply);
    reply.header('cache-control', 'no-store');
    const { tenant: pathTenant } = request.params as { tenant: string };
    const body = (request.body ?? {}) as Record<string, unknown>;
    try {
      if (!knownPathTenant(pathTenant)) {
        throw new EntraError('invalid_request', 90002, `Tenant '${pathTenant}' not found.`);
      }
      const app = findApp(body.client_id);
      if (!app) {
        throw new EntraError(
          'unauthorized_client',
          700016,
          `Application with identifier '${str(body.client_id) ?? ''}' was not found in the directory.`,
        );
      }
      const grantType = str(body.grant_type);
      const scopes = (str(body.scope) ?? '').split(' ').filter(Boolean);
      const now = clock.now().getTime();
      if (grantType === 'authorization_code') {
        authenticateClient(app, body, false);
        const code = str(body.code);
        const issued = code ? codes.get(code) : undefined;
        if (code) codes.delete(code);
        if (!issued || issued.clientId !== app.clientId) {
          throw new EntraError(
            'invalid_grant',
            54005,
            'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.',
          );
        }
        if (issued.expiresAt < now) {
          throw new EntraError(
            'invalid_grant',
            70008,
            'The provided authorization code or refresh token has expired due to inactivity.',
          );
        }
        if (str(body.redirect_uri) !== issued.redirectUri) {
          throw new EntraError(
            'invalid_grant',
            500112,
            'The reply address does not match the reply address provided when requesting Authorization code.',
          );
        }
        if (issued.codeChallenge) {
          const verifier = str(body.code_verifier) ?? '';
          const computed = createHash('sha256').update(verifier).digest('base64url');
          if (!verifier || computed !== issued.codeChallenge) {
            throw new EntraError(
              'invalid_grant',
              501481,
              'The Code_Verifier does not match the code_challenge supplied in the authorization request.',
            );
          }
        }
        const person = findPersonById(directory, issued.tenantId, issued.objectId);
        if (!person)
          throw new EntraError('invalid_grant', 50034, 'The user account does not exist in the directory.');
        const requested = scopes.length > 0 ? [...new Set([...issued.scopes, ...scopes])] : issued.scopes;
        return reply.send(await userTokens(app, person.tenant, person.user, requested, issued.nonce, true));
      }
      if (grantType === 'refresh_token') {
        authenticateClient(app, body, false);
        const refresh = str(body.refresh_token);
        const issued = refresh ? refreshTokens.get(refresh) : undefined;
        if (!issued || issued.clientId !== app.clientId) {
          throw new EntraError('invalid_grant', 9002313, 'Invalid request. Request is malformed or invalid.');
        }
        if (issued.expiresAt < now) {
          throw new EntraError(
            'invalid_grant',
            700082,
            'The refresh token has expired due to inactivity.',
            400,
          );
        }
        refreshTokens.delete(refresh!);
        const person = findPersonById(directory, issued.tenantId, issued.objectId);
        if (!person)
          throw new EntraError('invalid_grant', 50034, 'The user account does not exist in the directory.');
        const requested = scopes.length > 0 ? scopes : ['openid', 'profile', 'User.Read'];
        return reply.send(await userTokens(app, person.tenant, person.user, requested, undefined, true));
      }
      if (grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        authenticateClient(app, body, true);
        if (body.requested_token_use !== 'on_behalf_of') {
          throw new EntraError(
            'invalid_request',
            900144,
            "The request body must contain the following parameter: 'requested_token_use'.",
          );
        }
        const assertion = str(body.assertion);
        let claims: JWTPayload | undefined;
        if (assertion) {
          try {
            const decoded = decodeJwt(assertion);
            if (typeof decoded.exp === 'number' && decoded.exp * 1000 <= now) {
              throw new EntraError('invalid_grant', 500133, 'Assertion is not within its valid time range.');
            }
          } catch (err) {
            if (err instanceof EntraError) throw err;
          }
          claims = await verify(assertion);
        }
        if (!claims) {
          throw new EntraError('invalid_grant', 50013, 'Assertion failed signature validation.');
        }
        const audiences = [app.clientId, app.appIdUri].filter(Boolean);
        if (typeof claims.aud !== 'string' || !audiences.includes(claims.aud)) {
          throw new EntraError(
            'invalid_grant',
            50013,
            'Assertion audience does not match the Client app presenting the assertion.',
          );
        }
        const person = findPersonById(directory, String(claims.tid), String(claims.oid));
        if (!person)
          throw new EntraError('invalid_grant', 50034, 'The user account does not exist in the directory.');
        if (!person.tenant.adminConsent) {
          throw new EntraError(
            'invalid_grant',
            65001,
            `The user or administrator has not consented to use the application with ID '${app.clientId}' named '${app.displayName}'. Send an interactive authorization request for this user and resource.`,
            400,
            'consent_required',
          );
        }
        const requested = scopes.length > 0 ? scopes : [`${GRAPH_RESOURCE_URL}/.default`];
        const tokens = await userTokens(app, person.tenant, person.user, requested, undefined, false);
        delete tokens.client_info;
        return reply.send(tokens);
      }
      if (grantType === 'client_credentials') {
        authenticateClient(app, body, true);
        const tenant = tenantForPath(pathTenant);
        if (!tenant) {
          throw new EntraError(
            'invalid_request',
            90014,
            'A tenant identifier is required for the client credentials flow: use /{tenant}/oauth2/v2.0/token.',
          );
        }
        if (scopes.length !== 1 || !scopes[0]!.endsWith('/.default')) {
          throw new EntraError(
            'invalid_scope',
            1002012,
            'The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).',
          );
        }
        const resourceId = scopes[0]!.slice(0, -'/.default'.length);
        const resource =
          resourceId === GRAPH_RESOURCE_URL || resourceId === GRAPH_APP_ID
            ? GRAPH_APP_ID
            : appByAudience(resourceId)?.clientId;
        if (!resource) {
          throw new EntraError(
            'invalid_resource',
            500011,
            `The resource principal named ${resourceId} was not found in the tenant named ${tenant.displayName}.`,
          );
        }
        const servicePrincipal = createHash('sha256')
          .update(`${app.clientId}:${tenant.tenantId}`)
          .digest('hex');
        const spId = `${servicePrincipal.slice(0, 8)}-${servicePrincipal.slice(8, 12)}-4${servicePrincipal.slice(13, 16)}-8${servicePrincipal.slice(17, 20)}-${servicePrincipal.slice(20, 32)}`;
        const accessToken = await sign({
          ver: '2.0',
          iss: issuer(tenant.tenantId),
          aud: resource,
          azp: app.clientId,
          appid: app.clientId,
          azpacr: '1',
          idtyp: 'app',
          tid: tenant.tenantId,
          oid: spId,
          sub: spId,
          roles: [],
          uti: randomBytes(16).toString('base64url'),
          ...timeClaims(),
        });
        return reply.send({
          token_type: 'Bearer',
          expires_in: ttl,
          ext_expires_in: ttl,
          access_token: accessToken,
        });
      }
      throw new EntraError(
        'unsupported_grant_type',
        70003,
        `The app requested an unsupported grant type '${grantType ?? ''}'.`,
      );
    } catch (err) {
      if (err instanceof EntraError) return sendError(reply, err);
      throw err;
    }
  }

  function discovery(request: FastifyRequest, reply: FastifyReply) {
    cors(request, reply);
    const { tenant } = request.params as { tenant: string };
    if (!knownPathTenant(tenant)) {
      return sendError(reply, new EntraError('invalid_tenant', 90002, `Tenant '${tenant}' not found.`));
    }
    const record = tenantForPath(tenant);
    const issuerValue = record ? issuer(record.tenantId) : `${entra.base}/{tenantid}/v2.0`;
    const at = `${entra.base}/${encodeURIComponent(tenant)}`;
    return reply.send({
      token_endpoint: `${at}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
      jwks_uri: `${at}/discovery/v2.0/keys`,
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      issuer: issuerValue,
      request_uri_parameter_supported: false,
      userinfo_endpoint: `${GRAPH_RESOURCE_URL}/oidc/userinfo`,
      authorization_endpoint: `${at}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${at}/oauth2/v2.0/devicecode`,
      http_logout_supported: true,
      frontchannel_logout_supported: true,
      end_session_endpoint: `${at}/oauth2/v2.0/logout`,
      claims_supported: [
        'sub',
        'iss',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'acr',
        'nonce',
        'preferred_username',
        'name',
        'tid',
        'ver',
        'at_hash',
        'c_hash',
        'email',
        'oid',
      ],
      kerberos_endpoint: `${at}/kerberos`,
      tenant_region_scope: 'EU',
      cloud_instance_name: 'microsoftonline.com',
      cloud_graph_host_name: 'graph.windows.net',
      msgraph_host: 'graph.microsoft.com',
      rbac_url: 'https://pas.windows.net',
    });
  }

  function logout(request: FastifyRequest, reply: FastifyReply) {
    const q = (request.query ?? {}) as Record<string, unknown>;
    const cookie = request.headers.cookie ?? '';
    const match = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`).exec(cookie);
    if (match?.[1]) sessions.delete(match[1]);
    reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
    const target = str(q.post_logout_redirect_uri);
    if (target && directory.apps.some((app) => redirectAllowed(app, target))) {
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

  function register(server: FastifyInstance): void {
    server.options('/*', async (request, reply) => {
      cors(request, reply);
      return reply.code(204).send();
    });
    server.get('/:tenant/v2.0/.well-known/openid-configuration', discovery);
    server.get('/:tenant/.well-known/openid-configuration', discovery);
    server.get('/:tenant/discovery/v2.0/keys', async (request, reply) => {
      cors(request, reply);
      return reply.header('cache-control', 'public, max-age=3600').send(publicJwks);
    });
    server.get('/common/discovery/instance', async (request, reply) => {
      cors(request, reply);
      // Microsoft's answer: the aliases are Microsoft's hosts, so MSAL (whose authority string stays
      // https://login.microsoftonline.com/…) matches it; only the discovery endpoint is ours.
      return reply.send({
        tenant_discovery_endpoint: `${entra.base}/organizations/v2.0/.well-known/openid-configuration`,
        'api-version': '1.1',
        metadata: [
          {
            preferred_network: 'login.microsoftonline.com',
            preferred_cache: 'login.windows.net',
            aliases: [
              'login.microsoftonline.com',
              'login.windows.net',
              'login.microsoft.com',
              'sts.windows.net',
            ],
          },
        ],
      });
    });
    server.get('/:tenant/oauth2/v2.0/authorize', authorizeGet);
    server.post('/:tenant/oauth2/v2.0/authorize', authorizePost);
    server.post('/:tenant/oauth2/v2.0/token', token);
    server.get('/:tenant/oauth2/v2.0/logout', logout);
    server.post('/:tenant/oauth2/v2.0/logout', logout);

    // Development helpers (no Microsoft equivalent): the Teams host page uses them.
    server.get('/_dev/directory', async (request, reply) => {
      cors(request, reply);
      return reply.send({
        tenants: directory.tenants.map((t) => ({
          tenantId: t.tenantId,
          displayName: t.displayName,
          adminConsent: t.adminConsent,
          users: t.users.map((u) => ({
            objectId: u.objectId,
            email: u.email,
            displayName: u.displayName,
            azureRoles: u.azureRoles ?? [],
          })),
        })),
      });
    });
    server.post('/_dev/teams-token', async (request, reply) => {
      cors(request, reply);
      reply.header('cache-control', 'no-store');
      const body = (request.body ?? {}) as Record<string, unknown>;
      try {
        const tokenValue = await teamsToken(str(body.clientId) ?? '', str(body.email) ?? '');
        return reply.send({ token: tokenValue });
      } catch (err) {
        if (err instanceof EntraError) return sendError(reply, err);
        throw err;
      }
    });
  }

  return entra;
}

function shortScope(scope: string): string {
  for (const prefix of [`${GRAPH_RESOURCE_URL}/`, `${GRAPH_APP_ID}/`]) {
    if (scope.startsWith(prefix)) return scope.slice(prefix.length);
  }
  return scope;
}
