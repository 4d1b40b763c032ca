import { randomBytes } from 'node:crypto';
import {
  GRAPH_APP_ID,
  GRAPH_RESOURCE_URL,
  type DirectoryTenant,
  type DirectoryUser,
  type EntraApp,
} from '../directory.ts';
import {
  appByAudience,
  boundedSet,
  clientInfo,
  subjectFor,
  timeClaims,
  userClaims,
  type EntraCore,
} from './core.ts';
import { EntraError } from './errors.ts';

/** The tokens Entra issues for a user: access token for one resource, ID token, refresh token. */

const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);
const REFRESH_TTL_MS = 24 * 3600_000;
/** Delegated Graph permissions that need an administrator's consent. */
const ADMIN_SCOPES = new Set(['Organization.Read.All']);
/** What `/.default` for Graph grants when consented. */
const GRAPH_DEFAULT_SCOPES = ['User.Read', 'Organization.Read.All', 'email', 'openid', 'profile'];

/** One resource a scope list asks for, and the scopes on it. */
interface ResourceScopes {
  /** Audience of the access token. */
  audience: string;
  /** Short names echoed in `scope` and `scp`. */
  scopes: string[];
}

/** Graph's app id, or the client id of the application whose id or id URI is `prefix`. */
function resourceNamed(core: EntraCore, prefix: string): string {
  if (prefix === GRAPH_RESOURCE_URL || prefix === GRAPH_APP_ID) return GRAPH_APP_ID;
  const app = appByAudience(core, prefix);
  if (!app) {
    throw new EntraError(
      'invalid_resource',
      500011,
      `The resource principal named ${prefix} was not found in the tenant.`,
    );
  }
  return app.clientId;
}

/** Splits requested scopes into OIDC scopes and the one resource they name. */
function resourceOf(
  core: EntraCore,
  requested: string[],
  tenant: DirectoryTenant | undefined,
): ResourceScopes {
  const byResource = new Map<string, string[]>();
  for (const scope of requested.filter((s) => !OIDC_SCOPES.has(s))) {
    const slash = scope.lastIndexOf('/');
    const resource = slash > 0 ? resourceNamed(core, scope.slice(0, slash)) : GRAPH_APP_ID;
    const name = slash > 0 ? scope.slice(slash + 1) : scope;
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
  if (audience === GRAPH_APP_ID) {
    if (scopes.includes('.default')) scopes = GRAPH_DEFAULT_SCOPES.filter((s) => !OIDC_SCOPES.has(s));
    // Without an administrator's consent the directory permissions are not granted.
    if (tenant && !tenant.adminConsent) scopes = scopes.filter((s) => !ADMIN_SCOPES.has(s));
    for (const oidc of ['email', 'openid', 'profile']) if (requested.includes(oidc)) scopes.push(oidc);
  }
  return { audience, scopes: [...new Set(scopes)] };
}

function shortScope(scope: string): string {
  for (const prefix of [`${GRAPH_RESOURCE_URL}/`, `${GRAPH_APP_ID}/`]) {
    if (scope.startsWith(prefix)) return scope.slice(prefix.length);
  }
  return scope;
}

function issueRefreshToken(
  core: EntraCore,
  app: EntraApp,
  tenant: DirectoryTenant,
  user: DirectoryUser,
): string {
  const refreshToken = `0.AAAA${randomBytes(48).toString('base64url')}`;
  boundedSet(core.refreshTokens, refreshToken, {
    clientId: app.clientId,
    tenantId: tenant.tenantId,
    objectId: user.objectId,
    expiresAt: core.clock.now().getTime() + REFRESH_TTL_MS,
  });
  return refreshToken;
}

export async function userTokens(
  core: EntraCore,
  app: EntraApp,
  tenant: DirectoryTenant,
  user: DirectoryUser,
  requestedScopes: string[],
  nonce: string | undefined,
  withRefresh: boolean,
): Promise<Record<string, unknown>> {
  const resource = resourceOf(core, requestedScopes, tenant);
  const times = timeClaims(core);
  const accessToken = await core.sign({
    ver: '2.0',
    iss: core.issuer(tenant.tenantId),
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
    expires_in: core.ttl,
    ext_expires_in: core.ttl,
    access_token: accessToken,
    client_info: clientInfo(tenant, user),
  };
  if (requestedScopes.includes('openid')) {
    body.id_token = await core.sign({
      ver: '2.0',
      iss: core.issuer(tenant.tenantId),
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
    body.refresh_token = issueRefreshToken(core, app, tenant, user);
    body.refresh_token_expires_in = REFRESH_TTL_MS / 1000;
  }
  return body;
}
