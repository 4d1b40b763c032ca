import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt, type JWTPayload } from 'jose';
import { findPersonById, GRAPH_APP_ID, GRAPH_RESOURCE_URL, type EntraApp } from '../directory.ts';
import {
  appByAudience,
  cors,
  findApp,
  knownPathTenant,
  sameSecret,
  str,
  tenantForPath,
  timeClaims,
  type EntraCore,
} from './core.ts';
import { EntraError, sendError, unknownClient, unknownUser } from './errors.ts';
import { userTokens } from './user-tokens.ts';

/**
 * The token endpoint: authorization code (with PKCE), refresh token, on-behalf-of (jwt-bearer) and
 * client credentials, each checked in the order Entra checks them.
 */

/** What every grant receives: the authenticated-by-id application and the request. */
interface Grant {
  core: EntraCore;
  app: EntraApp;
  body: Record<string, unknown>;
  pathTenant: string;
  scopes: string[];
  now: number;
}

type Tokens = Record<string, unknown>;

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

function findPersonOrFail(core: EntraCore, tenantId: string, objectId: string) {
  const person = findPersonById(core.directory, tenantId, objectId);
  if (!person) throw unknownUser();
  return person;
}

async function authorizationCode({ core, app, body, scopes, now }: Grant): Promise<Tokens> {
  authenticateClient(app, body, false);
  const code = str(body.code);
  const issued = code ? core.codes.get(code) : undefined;
  if (code) core.codes.delete(code);
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
  const person = findPersonOrFail(core, issued.tenantId, issued.objectId);
  const requested = scopes.length > 0 ? [...new Set([...issued.scopes, ...scopes])] : issued.scopes;
  return userTokens(core, app, person.tenant, person.user, requested, issued.nonce, true);
}

async function refreshToken({ core, app, body, scopes, now }: Grant): Promise<Tokens> {
  authenticateClient(app, body, false);
  const refresh = str(body.refresh_token);
  const issued = refresh ? core.refreshTokens.get(refresh) : undefined;
  if (!issued || issued.clientId !== app.clientId) {
    throw new EntraError('invalid_grant', 9002313, 'Invalid request. Request is malformed or invalid.');
  }
  if (issued.expiresAt < now) {
    throw new EntraError('invalid_grant', 700082, 'The refresh token has expired due to inactivity.', 400);
  }
  core.refreshTokens.delete(refresh!);
  const person = findPersonOrFail(core, issued.tenantId, issued.objectId);
  const requested = scopes.length > 0 ? scopes : ['openid', 'profile', 'User.Read'];
  return userTokens(core, app, person.tenant, person.user, requested, undefined, true);
}

/** The on-behalf-of assertion's claims: an unexpired token this stand-in signed for `app`. */
async function verifyAssertion(core: EntraCore, app: EntraApp, assertion: string | undefined, now: number) {
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
    claims = await core.verify(assertion);
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
  return claims;
}

async function onBehalfOf({ core, app, body, scopes, now }: Grant): Promise<Tokens> {
  authenticateClient(app, body, true);
  if (body.requested_token_use !== 'on_behalf_of') {
    throw new EntraError(
      'invalid_request',
      900144,
      "The request body must contain the following parameter: 'requested_token_use'.",
    );
  }
  const claims = await verifyAssertion(core, app, str(body.assertion), now);
  const person = findPersonOrFail(core, String(claims.tid), String(claims.oid));
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
  const tokens = await userTokens(core, app, person.tenant, person.user, requested, undefined, false);
  delete tokens.client_info;
  return tokens;
}

/** A stable GUID-shaped service-principal id for the application in the tenant. */
function servicePrincipalId(clientId: string, tenantId: string): string {
  const h = createHash('sha256').update(`${clientId}:${tenantId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function clientCredentials({ core, app, body, pathTenant, scopes }: Grant): Promise<Tokens> {
  authenticateClient(app, body, true);
  const tenant = tenantForPath(core, pathTenant);
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
      : appByAudience(core, resourceId)?.clientId;
  if (!resource) {
    throw new EntraError(
      'invalid_resource',
      500011,
      `The resource principal named ${resourceId} was not found in the tenant named ${tenant.displayName}.`,
    );
  }
  const spId = servicePrincipalId(app.clientId, tenant.tenantId);
  const accessToken = await core.sign({
    ver: '2.0',
    iss: core.issuer(tenant.tenantId),
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
    ...timeClaims(core),
  });
  return { token_type: 'Bearer', expires_in: core.ttl, ext_expires_in: core.ttl, access_token: accessToken };
}

const GRANTS: Record<string, (grant: Grant) => Promise<Tokens>> = {
  authorization_code: authorizationCode,
  refresh_token: refreshToken,
  'urn:ietf:params:oauth:grant-type:jwt-bearer': onBehalfOf,
  client_credentials: clientCredentials,
};

async function token(core: EntraCore, request: FastifyRequest, reply: FastifyReply) {
  cors(request, reply);
  reply.header('cache-control', 'no-store');
  const { tenant: pathTenant } = request.params as { tenant: string };
  const body = (request.body ?? {}) as Record<string, unknown>;
  try {
    if (!knownPathTenant(core, pathTenant)) {
      throw new EntraError('invalid_request', 90002, `Tenant '${pathTenant}' not found.`);
    }
    const app = findApp(core, body.client_id);
    if (!app) throw unknownClient(str(body.client_id));
    const grantType = str(body.grant_type);
    const grant = grantType !== undefined && Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
    if (!grant) {
      throw new EntraError(
        'unsupported_grant_type',
        70003,
        `The app requested an unsupported grant type '${grantType ?? ''}'.`,
      );
    }
    const scopes = (str(body.scope) ?? '').split(' ').filter(Boolean);
    return reply.send(await grant({ core, app, body, pathTenant, scopes, now: core.clock.now().getTime() }));
  } catch (err) {
    if (err instanceof EntraError) return sendError(reply, err, core.clock.now());
    throw err;
  }
}

export function registerToken(server: FastifyInstance, core: EntraCore): void {
  server.post('/:tenant/oauth2/v2.0/token', (request, reply) => token(core, request, reply));
}
