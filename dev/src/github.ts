import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { escapeHtml, sendPage } from './html.ts';

/** An OAuth app registered with the stand-in. */
export interface GitHubClient {
  clientId: string;
  clientSecret: string;
  /** Registered callback URLs; a redirect_uri must be one of them or below one (same origin, sub-path). Absent: any http(s) URL. */
  redirectUris?: string[];
}

export interface GitHubUser {
  login: string;
  id: number;
  name: string;
  email: string;
}

export interface GitHubStandInOptions {
  clients?: GitHubClient[];
  /** Known users; any other valid login typed on the authorize page gets a derived identity. */
  users?: GitHubUser[];
  /** Lifetime of an authorization code (10 min, like GitHub's). */
  codeTtlMs?: number;
  clock?: { now(): Date };
}

export const DEFAULT_GITHUB_CLIENTS: GitHubClient[] = [
  { clientId: 'dev-client', clientSecret: 'dev-secret' },
];
export const DEMO_GITHUB_USER: GitHubUser = {
  login: 'octo-dev',
  id: 1001,
  name: 'Octo Dev',
  email: 'octo-dev@example.com',
};

const DOCS =
  'https://docs.github.com/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';

const loginSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/, 'Not a valid login');

const authorizeQuery = z.object({
  client_id: z.string().min(1).max(200),
  redirect_uri: z.string().max(2000).optional(),
  state: z.string().max(2000).optional(),
  scope: z.string().max(1000).optional(),
  login: z.string().max(100).optional(),
});

const authorizeForm = authorizeQuery.extend({
  decision: z.enum(['allow', 'deny']).default('allow'),
});

const tokenRequest = z.object({
  client_id: z.string().max(200).optional(),
  client_secret: z.string().max(500).optional(),
  code: z.string().max(500).optional(),
  redirect_uri: z.string().max(2000).optional(),
});

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  login: string;
  scope: string;
  expiresAt: number;
}

interface IssuedToken {
  login: string;
  scope: string;
}

function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password) return url;
  } catch {
    // not a URL
  }
  return undefined;
}

/** GitHub's rule: same scheme, host and port as a registered callback, path at or below its path. */
function allowedRedirect(client: GitHubClient, requested: string | undefined): string | undefined {
  const registered = (client.redirectUris ?? []).map(parseHttpUrl).filter((u): u is URL => !!u);
  if (requested === undefined || requested === '') return registered[0]?.toString();
  const url = parseHttpUrl(requested);
  if (!url) return undefined;
  if (registered.length === 0) return url.toString();
  for (const r of registered) {
    const base = r.pathname.endsWith('/') ? r.pathname : `${r.pathname}/`;
    if (url.origin === r.origin && (url.pathname === r.pathname || url.pathname.startsWith(base))) {
      return url.toString();
    }
  }
  return undefined;
}

function userFor(login: string, users: GitHubUser[]): GitHubUser {
  const known = users.find((u) => u.login.toLowerCase() === login.toLowerCase());
  if (known) return known;
  const id = 100_000 + (createHash('sha256').update(login.toLowerCase()).digest().readUInt32BE(0) % 900_000);
  return { login, id, name: login, email: `${login.toLowerCase()}@example.com` };
}

function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(36);
  let out = 'gho_';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

function wantsJson(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').toLowerCase().includes('application/json');
}

function basicCredentials(req: FastifyRequest): { id: string; secret: string } | undefined {
  const header = req.headers.authorization;
  if (!header?.toLowerCase().startsWith('basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function bearer(req: FastifyRequest): string | undefined {
  const match = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

/** The stand-in's state: its clients and users, and the codes and tokens it issued. */
interface GitHubState {
  clients: GitHubClient[];
  users: GitHubUser[];
  codeTtlMs: number;
  now(): number;
  codes: Map<string, IssuedCode>;
  tokens: Map<string, IssuedToken>;
  findClient(id: string | undefined): GitHubClient | undefined;
}

function pruneCodes(state: GitHubState): void {
  const t = state.now();
  for (const [code, issued] of state.codes) if (issued.expiresAt <= t) state.codes.delete(code);
}

function errorPage(reply: FastifyReply, status: number, title: string, detail: string): FastifyReply {
  return sendPage(
    reply.status(status),
    title,
    `<header>GitHub (development stand-in)</header><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></main>`,
  );
}

function authorizePage(
  reply: FastifyReply,
  params: z.infer<typeof authorizeQuery>,
  redirectUri: string,
  error?: string,
): FastifyReply {
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const scope = params.scope?.trim() ? params.scope : '(no scope: public information only)';
  // No form-action directive: the browser follows the answer's redirect to the application.
  return sendPage(
    reply.status(error ? 400 : 200),
    'Authorize application',
    `<header>GitHub (development stand-in)</header>
<main>
<div class="card">
<h1>Authorize ${escapeHtml(params.client_id)}</h1>
<p>This application wants to access your account.</p>
<p class="muted">Scope: ${escapeHtml(scope)}<br>Redirects to: ${escapeHtml(redirectUri)}</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/github/login/oauth/authorize">
${hidden('client_id', params.client_id)}
${hidden('redirect_uri', params.redirect_uri)}
${hidden('state', params.state)}
${hidden('scope', params.scope)}
<label for="login">Sign in as</label>
<input type="text" id="login" name="login" autocomplete="username" value="${escapeHtml(params.login ?? DEMO_GITHUB_USER.login)}">
<button type="submit" class="primary" name="decision" value="allow">Authorize</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>
</div>
</main>`,
  );
}

function redirectWith(
  reply: FastifyReply,
  target: string,
  params: Record<string, string | undefined>,
): FastifyReply {
  const url = new URL(target);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return reply.header('cache-control', 'no-store').redirect(url.toString(), 302);
}

/** The client's redirect URI for an authorize request, or undefined once the error page is sent. */
function authorizeTarget(
  state: GitHubState,
  reply: FastifyReply,
  clientId: string,
  redirectUri: string | undefined,
): string | undefined {
  const client = state.findClient(clientId);
  if (!client) {
    void errorPage(reply, 404, 'Application not found', 'No application has this client_id.');
    return undefined;
  }
  const allowed = allowedRedirect(client, redirectUri);
  if (!allowed) {
    void errorPage(
      reply,
      400,
      'Redirect URI mismatch',
      'The redirect_uri is not associated with this application.',
    );
  }
  return allowed;
}

function registerAuthorize(app: FastifyInstance, state: GitHubState): void {
  app.get('/login/oauth/authorize', async (req, reply) => {
    const q = authorizeQuery.safeParse(req.query);
    if (!q.success) return errorPage(reply, 400, 'Bad request', 'client_id is required.');
    const redirectUri = authorizeTarget(state, reply, q.data.client_id, q.data.redirect_uri);
    if (!redirectUri) return reply;
    return authorizePage(reply, q.data, redirectUri);
  });

  app.post('/login/oauth/authorize', async (req, reply) => {
    const f = authorizeForm.safeParse(req.body ?? {});
    if (!f.success) return errorPage(reply, 400, 'Bad request', 'client_id is required.');
    const redirectUri = authorizeTarget(state, reply, f.data.client_id, f.data.redirect_uri);
    if (!redirectUri) return reply;
    if (f.data.decision === 'deny') {
      return redirectWith(reply, redirectUri, {
        error: 'access_denied',
        error_description: 'The user has denied your application access.',
        error_uri: DOCS,
        state: f.data.state,
      });
    }
    const login = loginSchema.safeParse(f.data.login ?? DEMO_GITHUB_USER.login);
    if (!login.success) return authorizePage(reply, f.data, redirectUri, 'That is not a valid login.');
    pruneCodes(state);
    // 20 hex characters, like GitHub's codes; hex never starts with "ory".
    const code = randomBytes(10).toString('hex');
    state.codes.set(code, {
      clientId: f.data.client_id,
      redirectUri,
      login: userFor(login.data, state.users).login,
      scope: (f.data.scope ?? '')
        .split(/[\s,]+/)
        .filter(Boolean)
        .join(','),
      expiresAt: state.now() + state.codeTtlMs,
    });
    return redirectWith(reply, redirectUri, { code, state: f.data.state });
  });
}

function registerAccessToken(app: FastifyInstance, state: GitHubState): void {
  app.post('/login/oauth/access_token', async (req, reply) => {
    const merged = {
      ...(req.query as Record<string, unknown>),
      ...(req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}),
    };
    const parsed = tokenRequest.safeParse(merged);
    const answer = (body: Record<string, string>) => {
      reply.header('cache-control', 'no-store');
      if (wantsJson(req)) return reply.send(body);
      return reply
        .header('content-type', 'application/x-www-form-urlencoded; charset=utf-8')
        .send(new URLSearchParams(body).toString());
    };
    const fail = (error: string, description: string) =>
      answer({ error, error_description: description, error_uri: DOCS });
    if (!parsed.success) return fail('bad_verification_code', 'The code passed is incorrect or expired.');
    const basic = basicCredentials(req);
    const clientId = parsed.data.client_id ?? basic?.id;
    const clientSecret = parsed.data.client_secret ?? basic?.secret;
    const client = state.findClient(clientId);
    if (!client || client.clientSecret !== clientSecret) {
      return fail('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    }
    const code = parsed.data.code ?? '';
    const issued = state.codes.get(code);
    if (!issued || issued.clientId !== client.clientId || issued.expiresAt <= state.now()) {
      if (issued && issued.expiresAt <= state.now()) state.codes.delete(code);
      return fail('bad_verification_code', 'The code passed is incorrect or expired.');
    }
    // Single use: whatever follows, this code is spent.
    state.codes.delete(code);
    if (parsed.data.redirect_uri !== undefined && parsed.data.redirect_uri !== issued.redirectUri) {
      return fail(
        'redirect_uri_mismatch',
        'The redirect_uri MUST match the registered callback URL for this application.',
      );
    }
    const accessToken = randomToken();
    state.tokens.set(accessToken, { login: issued.login, scope: issued.scope });
    if (state.tokens.size > 10_000) state.tokens.delete(state.tokens.keys().next().value as string);
    return answer({ access_token: accessToken, token_type: 'bearer', scope: issued.scope });
  });
}

function authenticated(
  state: GitHubState,
  req: FastifyRequest,
  reply: FastifyReply,
): IssuedToken | undefined {
  const token = bearer(req);
  if (!token) {
    void reply.status(401).send({ message: 'Requires authentication', documentation_url: DOCS });
    return undefined;
  }
  const issued = state.tokens.get(token);
  if (!issued) void reply.status(401).send({ message: 'Bad credentials', documentation_url: DOCS });
  return issued;
}

function registerApi(app: FastifyInstance, state: GitHubState): void {
  app.get('/api/user', async (req, reply) => {
    const issued = authenticated(state, req, reply);
    if (!issued) return reply;
    const user = userFor(issued.login, state.users);
    return reply
      .header('x-oauth-scopes', issued.scope.split(',').filter(Boolean).join(', '))
      .header('cache-control', 'no-store')
      .send({ login: user.login, id: user.id, name: user.name, email: user.email, type: 'User' });
  });

  app.get('/api/user/emails', async (req, reply) => {
    const issued = authenticated(state, req, reply);
    if (!issued) return reply;
    const user = userFor(issued.login, state.users);
    return reply
      .header('cache-control', 'no-store')
      .send([{ email: user.email, primary: true, verified: true, visibility: 'public' }]);
  });
}

/**
 * A GitHub-like OAuth app host under `/github`: the authorize page, the token endpoint
 * (`/github/login/oauth/...`, like github.com) and `/github/api/user` (like api.github.com/user).
 * Third-party stand-in state (codes, tokens) is kept in memory.
 */
export function githubRoutes(options: GitHubStandInOptions = {}) {
  const clients = options.clients?.length ? options.clients : DEFAULT_GITHUB_CLIENTS;
  const state: GitHubState = {
    clients,
    users: [DEMO_GITHUB_USER, ...(options.users ?? [])],
    codeTtlMs: options.codeTtlMs ?? 10 * 60_000,
    now: () => (options.clock ? options.clock.now().getTime() : Date.now()),
    codes: new Map(),
    tokens: new Map(),
    findClient: (id) => clients.find((c) => c.clientId === id),
  };
  return async function routes(app: FastifyInstance): Promise<void> {
    app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      return reply
        .status(status)
        .send({ message: status === 500 ? 'Server Error' : err.message, documentation_url: DOCS });
    });
    registerAuthorize(app, state);
    registerAccessToken(app, state);
    registerApi(app, state);
  };
}
