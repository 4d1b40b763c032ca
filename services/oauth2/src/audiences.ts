import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuth2Config } from './config.ts';
import { ACCESS_TOKEN_RESOURCE, isKnownResource } from './context.ts';

/**
 * Which audiences a client may get tokens for (Hydra's client `audience` allow-list).
 *
 * A token's audience is the one the request names, by Hydra's `audience` parameter (authorization
 * endpoint; token endpoint with client_credentials) or RFC 8707's `resource`, else the platform's
 * APIs. It must be in the client's allow-list, at every endpoint that issues or resumes a token
 * (authorization, code exchange, refresh, client credentials, device code), so a client narrowed
 * after a grant cannot refresh its way back. An empty list allows the platform's APIs only: every
 * client created without a list (the API clients of the console, the apps the organisations
 * register) keeps working, as a Hydra client without a list gets tokens for no other audience.
 *
 * A refusal is RFC 8707's `invalid_target` (Hydra answers `invalid_request` for its parameter),
 * with one text for an unknown and a not-allowed audience: a client learns nothing about which
 * resource servers exist.
 */

const AUDIENCE_REFUSED = 'the requested audience is not one this client may get tokens for';

/** The client fields this module reads (oidc-provider keeps extra metadata under its own name). */
interface AudienceHolder {
  audience?: readonly string[] | undefined;
}

/** The audiences a client may get tokens for: its list, or the platform's APIs when it has none. */
function allowedAudiences(client: AudienceHolder | undefined): readonly string[] {
  const listed = client?.audience ?? [];
  return listed.length > 0 ? listed : [ACCESS_TOKEN_RESOURCE];
}

/**
 * Hydra's `audience` parameter of this request, where Hydra reads it: the authorization endpoint,
 * and the token endpoint for client_credentials. Hydra takes several, space-separated; a token here
 * has one audience, so more than one is refused.
 */
function hydraAudience(ctx: KoaContextWithOIDC): string | undefined {
  const { oidc } = ctx;
  let raw: unknown;
  if (oidc.route === 'authorization') raw = oidc.params?.audience;
  else if (oidc.route === 'token' && oidc.params?.grant_type === 'client_credentials') {
    raw = (oidc.body as Record<string, unknown> | undefined)?.audience;
  }
  if (raw === undefined || raw === '') return undefined;
  const values = typeof raw === 'string' ? raw.split(' ').filter(Boolean) : [];
  if (values.length !== 1) {
    throw new errors.InvalidTarget('only a single audience value is supported');
  }
  return values[0];
}

/** The resource a request names none of: Hydra's `audience`, else the platform's APIs. */
export function defaultAudience(ctx: KoaContextWithOIDC): string {
  return hydraAudience(ctx) ?? ACCESS_TOKEN_RESOURCE;
}

/**
 * Throws `invalid_target` unless `indicator` is an audience this server knows and `client` may get
 * tokens for; `invalid_request` when Hydra's `audience` and RFC 8707's `resource` disagree.
 */
export function checkAudience(
  config: OAuth2Config,
  ctx: KoaContextWithOIDC,
  indicator: string,
  client: AudienceHolder | undefined,
): void {
  const named = hydraAudience(ctx);
  if (named !== undefined && named !== indicator) {
    throw new errors.InvalidRequest('audience and resource name different audiences');
  }
  if (!isKnownResource(config, indicator) || !allowedAudiences(client).includes(indicator)) {
    throw new errors.InvalidTarget(AUDIENCE_REFUSED);
  }
}
