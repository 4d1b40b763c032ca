import { timingSafeEqual } from 'node:crypto';
import { sql, type Database } from '@acme/db';
import type { Middleware } from 'koa';
import type { RateLimiter } from '@acme/db/rate-limit';
import type { AdapterRegistry } from '../adapter/postgres-adapter.ts';
import type { OAuth2Runtime } from '../context.ts';
import { OAuth2Error, refuseInKoa } from '../errors.ts';
import { hashSecret, newSecret, secretMatches } from '../clients/client-secrets.ts';

/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) at Hydra's
 * `/oauth2/register`. Off unless configured. A registered client may ask for less than an operator's
 * client: the authorization code grant (with refresh tokens) only, never `skip_consent`, redirect
 * URIs on https or a loopback host (only loopback in `loopback` mode), tokens for the configured
 * resource servers only (the MCP endpoint; never the platform's own APIs, where a person's token
 * carries the person's powers). Its registration access token, shown once and stored hashed, reads,
 * replaces and deletes that one client, nothing else.
 */

export const REGISTRATION_ROUTE = '/oauth2/register';

/** RFC 7591 fields a registration may set; anything else is ignored, as RFC 7591 asks. */
const REGISTRABLE = [
  'client_id',
  'client_name',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'scope',
  'token_endpoint_auth_method',
  'token_endpoint_auth_signing_alg',
  'jwks',
  'jwks_uri',
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'contacts',
  'skip_consent',
  'audience',
] as const;

/** The registrable fields that hold lists of strings. */
const LIST_FIELDS = [
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'contacts',
  'audience',
] as const;
const REGISTRABLE_GRANTS = new Set(['authorization_code', 'refresh_token']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const BODY_LIMIT = 32 * 1024;
/** The adapter model a client's registration access token hash is kept in (deleted with the client). */
const TOKEN_MODEL = 'RegistrationAccessToken';

const invalidMetadata = (description: string) => new OAuth2Error(400, 'invalid_client_metadata', description);

/**
 * A registered client's audiences as they are read: registrations once stored no list, and an
 * empty list now means the platform's APIs. A client with a registration access token and no list
 * is read as registered today, with every resource server, never the platform's APIs.
 */
export function withRegisteredAudiences(
  registry: AdapterRegistry,
  db: Database,
  resourceServers: readonly string[],
): AdapterRegistry {
  const clients = registry.factory('Client');
  const find = async (id: string) => {
    const payload = await clients.find(id);
    const listed = payload?.audience;
    if (!payload || (Array.isArray(listed) && listed.length > 0)) return payload;
    const rows = await sql<{ one: number }>`
      select 1 as one from oauth2_models where model = ${TOKEN_MODEL} and id = ${id}`.execute(db.kysely);
    return rows.rows.length > 0 ? { ...payload, audience: [...resourceServers] } : payload;
  };
  const wrapped = new Proxy(clients, {
    get(target, property) {
      if (property === 'find') return find;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { get: registry.get, factory: (model) => (model === 'Client' ? wrapped : registry.factory(model)) };
}

function unauthorized(description: string): OAuth2Error {
  return new OAuth2Error(401, 'invalid_token', description);
}

/** The client document a registration may store, checked against the registration policy. */
function registrableDocument(
  body: unknown,
  policy: { mode: 'loopback' | 'open'; audiences: readonly string[] },
  clientId?: string,
) {
  const { mode } = policy;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidMetadata('The client document must be a JSON object.');
  }
  const given = body as Record<string, unknown>;
  const doc: Record<string, unknown> = {};
  for (const field of REGISTRABLE) {
    if (Object.hasOwn(given, field)) doc[field] = given[field];
  }
  // Every list holds strings only, checked before any message names one of its elements.
  for (const field of LIST_FIELDS) {
    const list = doc[field];
    if (Array.isArray(list) && !list.every((item) => typeof item === 'string')) {
      throw invalidMetadata(`The client is invalid: ${field} must be a list of strings.`);
    }
  }
  if (doc.skip_consent === true) {
    throw invalidMetadata('The client is invalid: skip_consent cannot be registered; a person must consent.');
  }
  const grants = Array.isArray(doc.grant_types) ? doc.grant_types : ['authorization_code'];
  for (const grant of grants) {
    if (!REGISTRABLE_GRANTS.has(grant as string)) {
      throw invalidMetadata(
        `The client is invalid: grant_types: ${grant as string} cannot be registered (only authorization_code and refresh_token).`,
      );
    }
  }
  if (mode === 'loopback') {
    for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
      const uris = Array.isArray(doc[field]) ? (doc[field] as unknown[]) : [];
      for (const raw of uris) {
        const url = typeof raw === 'string' ? URL.parse(raw) : null;
        if (!url || !LOOPBACK_HOSTS.has(url.hostname)) {
          throw new OAuth2Error(
            400,
            'invalid_redirect_uri',
            `${field}: ${raw as string} must be on a loopback host (this server registers local clients only).`,
          );
        }
      }
    }
  }
  // Its audiences: those it names, each one of the resource servers, else every resource server.
  if (doc.audience !== undefined && !Array.isArray(doc.audience)) {
    throw invalidMetadata('The client is invalid: audience must be a list of URLs.');
  }
  const named = (doc.audience as unknown[] | undefined) ?? [];
  for (const audience of named) {
    if (!policy.audiences.includes(audience as string)) {
      throw invalidMetadata(
        `The client is invalid: audience: ${audience as string} cannot be registered (only: ${policy.audiences.join(', ')}).`,
      );
    }
  }
  // Client ids are chosen here; a replacement names its own.
  if (clientId === undefined) delete doc.client_id;
  return { ...doc, audience: named.length > 0 ? named : [...policy.audiences], skip_consent: false };
}

async function readJson(ctx: Parameters<Middleware>[0]): Promise<unknown> {
  if (!ctx.is('application/json')) {
    throw new OAuth2Error(415, 'invalid_request', 'The request content type must be application/json.');
  }
  const length = ctx.request.length;
  if (length !== undefined && length > BODY_LIMIT) {
    throw new OAuth2Error(413, 'invalid_request', 'The request body is too large.');
  }
  const chunks: Buffer[] = [];
  let received = 0;
  // refuseUnstorableInput hands the body on through `iterator` (as oidc-provider reads it).
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > BODY_LIMIT)
      throw new OAuth2Error(413, 'invalid_request', 'The request body is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw invalidMetadata('The client document is not valid JSON.');
  }
}

/** RFC 7591 answers leave unset fields out (Hydra's admin view writes them as empty strings). */
function withoutEmpty<T extends object>(view: T): Partial<T> {
  return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== '' && v !== null)) as Partial<T>;
}

function bearerOf(ctx: Parameters<Middleware>[0]): string | undefined {
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,4096})$/.exec(ctx.get('authorization'));
  return match?.[1];
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(hashSecret(a));
  const y = Buffer.from(hashSecret(b));
  return timingSafeEqual(x, y);
}

export function registrationEndpoint(rt: OAuth2Runtime, db: Database, limiter: RateLimiter): Middleware {
  const settings = rt.config.registration;
  const policy = {
    mode: settings.mode as 'loopback' | 'open',
    audiences: rt.config.resourceServers,
  };
  const uriOf = (clientId: string) =>
    `${rt.config.issuer}${REGISTRATION_ROUTE}/${encodeURIComponent(clientId)}`;

  async function saveToken(clientId: string): Promise<string> {
    const token = newSecret();
    const payload = JSON.stringify({ clientId, hash: hashSecret(token) });
    await sql`
      insert into oauth2_models (model, id, payload) values (${TOKEN_MODEL}, ${clientId}, ${payload}::jsonb)
      on conflict (model, id) do update set payload = excluded.payload`.execute(db.kysely);
    return token;
  }

  /** The client this registration access token manages; 401 for any other token or client. */
  async function authorise(ctx: Parameters<Middleware>[0], clientId: string) {
    const token = bearerOf(ctx);
    if (token === undefined) throw unauthorized('A registration access token is required.');
    const rows = await sql<{ payload: { hash: string } }>`
      select payload from oauth2_models where model = ${TOKEN_MODEL} and id = ${clientId}`.execute(db.kysely);
    const stored = rows.rows[0]?.payload.hash;
    if (stored === undefined || !secretMatches(stored, token)) {
      throw unauthorized('The registration access token is not valid for this client.');
    }
  }

  async function register(ctx: Parameters<Middleware>[0]) {
    if (settings.initialAccessToken !== undefined) {
      const token = bearerOf(ctx);
      if (token === undefined || !sameText(token, settings.initialAccessToken)) {
        throw unauthorized('An initial access token is required to register a client.');
      }
    }
    const limit = await limiter.hit(ctx.ip, rt.clock.now());
    if (!limit.allowed) {
      ctx.set('Retry-After', String(limit.retryAfterSec));
      throw new OAuth2Error(429, 'too_many_requests', 'Too many clients were registered. Try again later.');
    }
    const doc = registrableDocument(await readJson(ctx), policy);
    const created = await rt.clients.create(doc);
    const token = await saveToken(created.client_id);
    ctx.status = 201;
    return {
      ...withoutEmpty(created),
      client_id_issued_at: Math.floor(Date.parse(created.created_at) / 1000),
      registration_access_token: token,
      registration_client_uri: uriOf(created.client_id),
    };
  }

  async function manage(ctx: Parameters<Middleware>[0], clientId: string) {
    await authorise(ctx, clientId);
    const answer = (view: object) => ({ ...withoutEmpty(view), registration_client_uri: uriOf(clientId) });
    switch (ctx.method) {
      case 'GET':
        return answer(await rt.clients.get(clientId));
      case 'PUT': {
        const body = await readJson(ctx);
        const named = (body as { client_id?: unknown } | null)?.client_id;
        if (named !== undefined && named !== clientId) {
          throw invalidMetadata('The client is invalid: client_id cannot change.');
        }
        const doc = registrableDocument(body, policy, clientId);
        return answer(await rt.clients.replace(clientId, { ...doc, client_id: clientId }));
      }
      case 'DELETE':
        await rt.clients.remove(clientId);
        ctx.status = 204;
        return undefined;
      default:
        throw new OAuth2Error(405, 'invalid_request', `${ctx.method} is not allowed here.`);
    }
  }

  return async (ctx, next) => {
    const path = ctx.path;
    if (path !== REGISTRATION_ROUTE && !path.startsWith(`${REGISTRATION_ROUTE}/`)) return next();
    ctx.set('Cache-Control', 'no-store');
    try {
      if (settings.mode === 'off') throw OAuth2Error.notFound('Dynamic client registration is not enabled.');
      let body: unknown;
      if (path === REGISTRATION_ROUTE) {
        if (ctx.method !== 'POST') throw new OAuth2Error(405, 'invalid_request', 'Register with POST.');
        body = await register(ctx);
      } else {
        let clientId: string;
        try {
          clientId = decodeURIComponent(path.slice(REGISTRATION_ROUTE.length + 1));
        } catch {
          throw unauthorized('The registration access token is not valid for this client.');
        }
        body = await manage(ctx, clientId);
      }
      if (ctx.status !== 204) {
        ctx.type = 'application/json';
        ctx.body = body;
        if (ctx.status === 404) ctx.status = 200;
      }
    } catch (error) {
      if (!(error instanceof OAuth2Error)) throw error;
      if (error.status === 401) ctx.set('WWW-Authenticate', `Bearer error="${error.error}"`);
      refuseInKoa(ctx, error.status, error.error, error.description);
    }
  };
}
