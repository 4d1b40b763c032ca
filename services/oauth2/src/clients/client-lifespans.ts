import { DEVICE_GRANT, durationSeconds, type LifespanField, type StoredClient } from './client-document.ts';

/**
 * A client's own token lifespan (Hydra's `<grant>_grant_<token>_lifespan`) for the token being
 * issued, by the grant of the token request; undefined when the client sets none (the server's
 * default applies).
 */

const PREFIX: Record<string, string> = {
  authorization_code: 'authorization_code_grant',
  refresh_token: 'refresh_token_grant',
  client_credentials: 'client_credentials_grant',
  [DEVICE_GRANT]: 'device_authorization_grant',
};

type TokenKind = 'access_token' | 'id_token' | 'refresh_token';

export function clientLifespan(client: unknown, grantType: unknown, kind: TokenKind): number | undefined {
  const prefix = typeof grantType === 'string' ? PREFIX[grantType] : undefined;
  const lifespans = (client as Partial<StoredClient> | undefined)?.hydra_lifespans;
  if (!prefix || !lifespans) return undefined;
  const value = lifespans[`${prefix}_${kind}_lifespan` as LifespanField];
  return typeof value === 'string' ? durationSeconds(value) : undefined;
}
