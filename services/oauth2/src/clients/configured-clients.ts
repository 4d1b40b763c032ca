import { appUrls, type OAuth2Config } from '../config.ts';
import { ACCESS_TOKEN_RESOURCE, SUPPORTED_SCOPES } from '../context.ts';
import { DEVICE_GRANT, type StoredClient } from './client-document.ts';

type Seed = Omit<StoredClient, 'created_at' | 'updated_at' | 'rotated_secrets'>;

const common = () => ({
  token_endpoint_auth_method: 'none',
  scope: SUPPORTED_SCOPES.join(' '),
  hydra_metadata: {},
  // The platform's own applications and devices call the platform's APIs only.
  audience: [ACCESS_TOKEN_RESOURCE],
  owner: '',
  skip_logout_consent: false,
  allowed_cors_origins: [],
  hydra_lifespans: {},
  configured: true,
});

/**
 * The platform's own clients from the configuration, as ordinary stored clients (seeded at
 * start-up): each application a public client of the authorization code grant (PKCE) with its
 * callback and post-logout URIs, each device client a public client of the device grant.
 */
export function configuredClients(config: OAuth2Config): Seed[] {
  const apps: Seed[] = config.clients.map((client) => {
    const urls = appUrls(client);
    return {
      ...common(),
      client_id: client.client_id,
      client_name: client.client_name ?? client.client_id,
      application_type: 'web',
      redirect_uris: [urls.redirectUri],
      post_logout_redirect_uris: [urls.postLogoutRedirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      skip_consent: client.skip_consent ?? false,
    };
  });
  const devices: Seed[] = config.deviceClients.map((client) => ({
    ...common(),
    client_id: client.client_id,
    client_name: client.client_name,
    application_type: 'native',
    redirect_uris: [],
    post_logout_redirect_uris: [],
    grant_types: [DEVICE_GRANT, 'refresh_token'],
    response_types: [],
    skip_consent: false,
  }));
  return [...apps, ...devices];
}
