import { createHash, generateKeyPair, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { decodeJwt, importJWK, SignJWT, type JWK } from 'jose';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml } from './html.ts';

// An organisation's identity provider (think Okta or Entra ID) for development and tests: a real
// OpenID Provider on `oidc-provider`, with its own sign-in page (email, password, Sign in, Cancel).
// Relying parties see discovery, a JWKS, authorization code + PKCE, client_secret_basic/post, and
// ID tokens carrying `email` and `email_verified`.

/** A relying party registered at the organisation's provider (our identity service). */
export interface OrgIdpClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface OrgIdpUser {
  email: string;
  password: string;
  givenName: string;
  familyName: string;
  /** What the provider says about the address (true unless set). */
  emailVerified?: boolean;
  /** The `sub` it gives (a hash of the address unless set): a hostile IdP can claim any subject. */
  subject?: string;
}

export const ORG_IDP_DEMO_PASSWORD = 'Globex-Demo-2026!';

export const ORG_IDP_DEMO_USERS: OrgIdpUser[] = [
  { email: 'hopper@globex.test', password: ORG_IDP_DEMO_PASSWORD, givenName: 'Grace', familyName: 'Hopper' },
  {
    email: 'lovelace@globex.test',
    password: ORG_IDP_DEMO_PASSWORD,
    givenName: 'Ada',
    familyName: 'Lovelace',
  },
];

/** Misbehaviours a test can switch on, to prove the relying party refuses them. */
export interface OrgIdpFaults {
  /** ID tokens are re-signed (validly) with this audience instead of the client's. */
  idTokenAudience?: string;
  /** ID tokens are re-signed (validly, with the provider's key) naming this issuer instead. */
  idTokenIssuer?: string;
  /** The JWKS publishes other public keys under the signing keys' ids: every signature looks bad. */
  wrongJwks?: boolean;
}

export interface OrgIdpOptions {
  /** Port (4520); 0 picks a free one. */
  port?: number;
  host?: string;
  /** Issuer URL, `http://localhost:<port>` by default. */
  issuer?: string;
  clients?: OrgIdpClient[];
  users?: OrgIdpUser[];
}

export interface OrgIdp {
  issuer: string;
  /** Signs new ID tokens with a fresh key; the previous key stays published unless `dropPrevious`. */
  rotateKeys(options?: { dropPrevious?: boolean }): Promise<{ kid: string }>;
  /** The key id new ID tokens are signed with. */
  currentKid(): string;
  /** Registers (or replaces) a relying party. */
  setClient(client: OrgIdpClient): void;
  /** Adds (or replaces) a person who can sign in here. */
  addUser(user: OrgIdpUser): void;
  faults: OrgIdpFaults;
  close(): Promise<void>;
}

const FORM_LIMIT = 16 * 1024;
const SCOPES = ['openid', 'email', 'profile'];

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;
function publicJwk(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

/** A stable subject per address, like a directory object id. */
export function orgIdpSubject(email: string): string {
  return createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 32);
}

const subjectOf = (user: OrgIdpUser) => user.subject ?? orgIdpSubject(user.email);

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/x-www-form-urlencoded') {
      reject(new Error('unsupported content type'));
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > FORM_LIMIT) {
        reject(new Error('form too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

const css = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:0;background:#eef1f6;color:#1b1f24}
header{background:#5b2a86;color:#fff;padding:12px 24px;font-weight:600}
.card{background:#fff;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12);padding:28px;max-width:380px;margin:56px auto}
label{display:block;margin:14px 0 4px}
input{width:100%;box-sizing:border-box;padding:8px;font-size:15px}
button{margin-top:18px;margin-right:8px;padding:8px 18px;font-size:15px;cursor:pointer;border-radius:4px;border:1px solid #888}
.primary{background:#5b2a86;color:#fff;border-color:#5b2a86}
.error{color:#b00020}
.muted{color:#57606a;font-size:13px}`;

function sendHtml(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    // No form-action: after signing in, the redirects go on through the relying party, the
    // authorization server and the app, and CSP checks each of them against form-action.
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${css}</style></head>
<body><header>Globex identity (development stand-in)</header>${body}</body></html>
`);
}

function loginPage(uid: string, clientName: string, email = '', error = ''): string {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  return `<main class="card">
<h1>Sign in</h1>
<p class="muted">to continue to ${escapeHtml(clientName)}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${action}/login">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button>
</form>
<form method="post" action="${action}/cancel"><button type="submit">Cancel</button></form>
</main>`;
}

type Payload = Record<string, unknown> & {
  uid?: string;
  userCode?: string;
  grantId?: string;
  consumed?: number;
};

/** In-memory storage for oidc-provider, one per stand-in, kept across key rotations. */
function memoryAdapterFactory() {
  const store = new Map<string, { payload: Payload; expiresAt: number }>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return (model: string) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id: string, payload: Payload, expiresIn: number) {
        store.set(key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 });
      },
      async find(id: string) {
        return live(key(id));
      },
      async findByUid(uid: string) {
        for (const [k, { payload }] of store)
          if (k.startsWith(`${model}:`) && payload.uid === uid) return live(k);
        return undefined;
      },
      async findByUserCode(userCode: string) {
        for (const [k, { payload }] of store)
          if (k.startsWith(`${model}:`) && payload.userCode === userCode) return live(k);
        return undefined;
      },
      async consume(id: string) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const [k, { payload }] of store) if (payload.grantId === grantId) store.delete(k);
      },
    };
  };
}

/** The stand-in's state; `provider` is rebuilt when keys or clients change. */
interface IdpState {
  issuer: string;
  users: Map<string, OrgIdpUser>;
  clients: Map<string, OrgIdpClient>;
  keys: JWK[];
  cookieKeys: string[];
  faults: OrgIdpFaults;
  adapter: ReturnType<typeof memoryAdapterFactory>;
  accountFor(sub: string): OrgIdpUser | undefined;
  provider: Provider;
}

function build(s: IdpState): Provider {
  const configuration: Configuration = {
    adapter: s.adapter as unknown as Configuration['adapter'],
    clients: [...s.clients.values()].map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      client_name: c.clientId,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys: s.keys as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      keys: s.cookieKeys,
      // Other oidc-provider servers share `localhost` cookies with this one: own names.
      names: { session: '_orgidp_session', interaction: '_orgidp_interaction', resume: '_orgidp_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    scopes: SCOPES,
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
    },
    // Okta and Entra put the requested claims into the ID token as well.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      revocation: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    findAccount: async (_ctx, sub) => {
      const user = s.accountFor(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: user.email.toLowerCase(),
          email_verified: user.emailVerified ?? true,
          name: `${user.givenName} ${user.familyName}`,
          given_name: user.givenName,
          family_name: user.familyName,
        }),
      };
    },
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    renderError: async (ctx, out) => {
      ctx.type = 'application/json';
      ctx.body = { error: out.error, error_description: out.error_description ?? '' };
    },
    ttl: {
      AuthorizationCode: 120,
      IdToken: 600,
      AccessToken: 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
  };
  const provider = new Provider(s.issuer, configuration);
  provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const { idTokenAudience: aud, idTokenIssuer: iss } = s.faults;
    if (ctx.path === '/token' && (aud || iss) && ctx.status === 200) {
      const body = ctx.body as { id_token?: string };
      if (body.id_token)
        body.id_token = await resign(s, body.id_token, { ...(aud && { aud }), ...(iss && { iss }) });
    }
  });
  return provider;
}

async function resign(s: IdpState, idToken: string, changes: Record<string, unknown>): Promise<string> {
  const key = s.keys[0]!;
  const claims = { ...decodeJwt(idToken), ...changes };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid!, typ: 'JWT' })
    .sign(await importJWK(key, 'RS256'));
}

/**
 * The published keys, or with the `wrongJwks` fault each one's modulus with one bit flipped: the same
 * kid, size and algorithm, and no signature of ours verifies with it. (Made on the spot: a fresh key
 * pair per call took seconds on a busy machine, past the relying party's time-out.)
 */
function publishedJwks(s: IdpState): { keys: JWK[] } {
  const keys = s.keys.map(publicJwk);
  if (!s.faults.wrongJwks) return { keys };
  return { keys: keys.map((k) => ({ ...k, n: flipMiddleBit(k.n!) })) };
}

function flipMiddleBit(base64url: string): string {
  const bytes = Buffer.from(base64url, 'base64url');
  bytes[bytes.length >> 1]! ^= 0x10;
  return bytes.toString('base64url');
}

async function interaction(
  s: IdpState,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
  action: string,
) {
  let details;
  try {
    details = await s.provider.interactionDetails(req, res);
  } catch {
    sendHtml(
      res,
      400,
      'Sign-in expired',
      '<main class="card"><h1>This sign-in has expired</h1><p>Go back to the application and start again.</p></main>',
    );
    return;
  }
  if (details.uid !== uid) {
    sendHtml(res, 400, 'Sign-in expired', '<main class="card"><h1>This sign-in has expired</h1></main>');
    return;
  }
  const clientId = String(details.params.client_id ?? '');
  if (req.method === 'GET' && action === '') {
    sendHtml(res, 200, 'Sign in', loginPage(uid, clientId));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  if (action === 'cancel') {
    await s.provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (action !== 'login') {
    res.writeHead(404).end();
    return;
  }
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch {
    res.writeHead(400).end();
    return;
  }
  const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 320);
  const password = (form.get('password') ?? '').slice(0, 1024);
  const user = s.users.get(email);
  if (!user || !sameSecret(user.password, password)) {
    sendHtml(res, 200, 'Sign in', loginPage(uid, clientId, email, 'The email or password is incorrect.'));
    return;
  }
  const accountId = subjectOf(user);
  // A first-party enterprise app: consent is granted by the administrator, so no consent screen.
  const grant = details.grantId
    ? await s.provider.Grant.find(details.grantId)
    : new s.provider.Grant({ accountId, clientId });
  if (!grant) {
    res.writeHead(400).end();
    return;
  }
  grant.addOIDCScope(SCOPES.join(' '));
  const grantId = await grant.save();
  await s.provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

/** Routes a request: the interaction pages, the test hooks, else oidc-provider. */
function listenRequests(server: Server, s: IdpState, rotateKeys: () => Promise<{ kid: string }>): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const match = /^\/interaction\/([A-Za-z0-9_-]{1,100})(?:\/(login|cancel))?$/.exec(path);
    const handle = async () => {
      if (match) return interaction(s, req, res, match[1]!, match[2] ?? '');
      if (path === '/jwks' && req.method === 'GET' && s.faults.wrongJwks) {
        res
          .writeHead(200, { 'content-type': 'application/jwk-set+json' })
          .end(JSON.stringify(publishedJwks(s)));
        return;
      }
      // Development and tests only, like the rest of the stand-in: rotate the signing key.
      if (path === '/admin/rotate-keys' && req.method === 'POST') {
        const { kid } = await rotateKeys();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kid }));
        return;
      }
      if (path === '/health') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
        return;
      }
      return s.provider.callback()(req, res);
    };
    handle().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"server_error"}');
    });
  });
}

/** Starts the organisation identity provider stand-in on its own port. */
export async function startOrgIdp(options: OrgIdpOptions = {}): Promise<OrgIdp> {
  const host = options.host ?? '127.0.0.1';
  const users = new Map((options.users ?? ORG_IDP_DEMO_USERS).map((u) => [u.email.toLowerCase(), u]));
  const clients = new Map((options.clients ?? []).map((c) => [c.clientId, c]));
  const keys: JWK[] = [await newSigningKey()];
  const faults: OrgIdpFaults = {};

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4520, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = (options.issuer ?? `http://localhost:${port}`).replace(/\/+$/, '');

  const s = {
    issuer,
    users,
    clients,
    keys,
    cookieKeys: [randomBytes(32).toString('base64url')],
    faults,
    adapter: memoryAdapterFactory(),
    accountFor: (sub: string): OrgIdpUser | undefined =>
      [...users.values()].find((u) => subjectOf(u) === sub),
  } as Omit<IdpState, 'provider'> as IdpState;
  s.provider = build(s);

  listenRequests(server, s, () => api.rotateKeys());
  const api: OrgIdp = {
    issuer,
    faults,
    currentKid: () => s.keys[0]!.kid!,
    async rotateKeys(opts = {}) {
      const fresh = await newSigningKey();
      s.keys = opts.dropPrevious ? [fresh] : [fresh, ...s.keys.slice(0, 1)];
      s.provider = build(s);
      return { kid: fresh.kid! };
    },
    setClient(client) {
      clients.set(client.clientId, client);
      s.provider = build(s);
    },
    addUser(user) {
      users.set(user.email.toLowerCase(), user);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
