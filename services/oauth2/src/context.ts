import type { Clock } from '@acme/db/clock';
import { PLATFORM_API_AUDIENCE } from '@acme/service-kit/audiences';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import type { AdapterRegistry } from './adapter/postgres-adapter.ts';
import type { ClientStore } from './clients/client-store.ts';
import type { ClaimsStore } from './claims.ts';
import type { ClaimsSource } from './claims-source.ts';
import type { ClientConfig, OAuth2Config } from './config.ts';
import type { KeyMaterial } from './keys.ts';

/** What the interaction handlers and public middleware share. Built once in app.ts. */
export interface OAuth2Context {
  config: OAuth2Config;
  clock: Clock;
  adapters: AdapterRegistry;
  claims: ClaimsStore;
  /** The user service's claims (and session check); undefined when the server runs alone. */
  claimsSource: ClaimsSource | undefined;
  keys: KeyMaterial;
  logger: Logger;
}

export interface OAuth2Runtime extends OAuth2Context {
  provider: Provider;
  /** Every OAuth 2.0 client (Hydra's admin client API and the configured ones). */
  clients: ClientStore;
}

/** The default audience (resource indicator) of the access tokens this server issues: the platform's APIs. */
export const ACCESS_TOKEN_RESOURCE = PLATFORM_API_AUDIENCE;

/** The scopes this server knows; the resource server carries them so `scp` lists them. */
export const SUPPORTED_SCOPES = ['openid', 'offline_access'] as const;

export function clientById(config: OAuth2Config, clientId: unknown): ClientConfig | undefined {
  return config.clients.find((c) => c.client_id === clientId);
}

export function deviceClientById(
  config: OAuth2Config,
  clientId: unknown,
): OAuth2Config['deviceClients'][number] | undefined {
  return config.deviceClients.find((c) => c.client_id === clientId);
}

/** The first configured client is the default application (used when no client is known). */
export function defaultClient(config: OAuth2Config): ClientConfig {
  const first = config.clients[0];
  if (!first) throw new Error('no OAuth2 client configured');
  return first;
}

/** The resource a token may be asked for (RFC 8707): the platform's APIs, or a configured resource server. */
export function isKnownResource(config: OAuth2Config, resource: unknown): resource is string {
  return resource === ACCESS_TOKEN_RESOURCE || config.resourceServers.includes(resource as string);
}

/** The one resource an authorization request asked for (`resource`), or the platform's APIs. */
export function requestedResource(config: OAuth2Config, params: Record<string, unknown>): string {
  const asked = Array.isArray(params.resource) ? params.resource[0] : params.resource;
  return isKnownResource(config, asked) ? asked : ACCESS_TOKEN_RESOURCE;
}
