import { errors, type ClientCredentials, type KoaContextWithOIDC } from 'oidc-provider';
import type { ClaimsSource } from './claims-source.ts';
import type { JsonObject } from './claims.ts';
import { EXTRA_CLIENT_PROPERTIES } from './clients/client-document.ts';

/**
 * Client-credentials clients (the organisations' API clients, created by the user service through
 * the admin client API, clients/client-store.ts): Hydra's `metadata` object is kept as
 * `hydra_metadata`, and its `ext` object becomes the access token's `ext` claim (the user service
 * puts the organisation, the scope groups and `authenticationMode: "api"` there).
 */

/**
 * Client metadata oidc-provider keeps beyond the standard fields: Hydra's own fields
 * (client-document.ts), `metadata` stored as `hydra_metadata` (oidc-provider's Client already has a
 * `metadata()` method). Extra metadata keeps its snake_case name on the client object.
 */
const STORED_METADATA = 'hydra_metadata' as const;
export const extraClientMetadata = {
  properties: [...EXTRA_CLIENT_PROPERTIES],
  validator(_ctx: unknown, key: string, value: unknown) {
    if (key !== STORED_METADATA || value === undefined) return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error('metadata must be an object');
    }
  },
};

/**
 * `{ext}` of a client-credentials access token: the client's `metadata.ext`. When the client
 * belongs to an organisation (`ext.organisation.id`, set by the user service) and the user service
 * is known, the request's client address must be inside the organisation's trusted networks:
 * otherwise `unauthorized_client`, and no token.
 */
export async function clientCredentialsClaims(
  ctx: KoaContextWithOIDC,
  _token: ClientCredentials,
  claimsSource: ClaimsSource | undefined,
): Promise<JsonObject> {
  const client = ctx.oidc.client as { [STORED_METADATA]?: { ext?: unknown } } | undefined;
  const raw = client?.[STORED_METADATA]?.ext;
  const ext = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as JsonObject) : {};
  const organisation = ext.organisation as { id?: unknown } | undefined;
  if (claimsSource && typeof organisation?.id === 'string') {
    let verdict;
    try {
      verdict = await claimsSource.checkNetwork({ organisationId: organisation.id, clientAddress: ctx.ip });
    } catch {
      throw new errors.TemporarilyUnavailable('the client cannot be checked right now; retry later');
    }
    if (verdict !== 'granted') {
      const refused = new errors.UnauthorizedClient();
      refused.error_description =
        "token refused: the client's organisation allows token requests only from its trusted networks";
      throw refused;
    }
  }
  return { ext };
}
