import type { Configuration } from '@azure/msal-browser';
import type { M365Config } from '../../shared/config/env.ts';
import { BASE, paths } from '../../shared/config/paths.ts';

// MSAL's configuration. MSAL accepts only an https authority, so development keeps the real authority
// string and hands MSAL the metadata of the local Entra stand-in itself (no discovery call is made);
// production leaves `entraUrl` out and MSAL discovers the real endpoints.

/** Where Microsoft sends popup and redirect responses: the bridge page (a second Vite entry). */
const REDIRECT_BRIDGE_PATH = `${BASE}/redirect.html`;

function tenantOf(authority: string): string {
  return new URL(authority).pathname.split('/').filter(Boolean)[0] ?? 'organizations';
}

function localAuthorityMetadata(entraUrl: string, authority: string): string {
  const root = entraUrl.replace(/\/$/, '');
  const base = `${root}/${tenantOf(authority)}`;
  return JSON.stringify({
    issuer: `${root}/{tenantid}/v2.0`,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    token_endpoint: `${base}/oauth2/v2.0/token`,
    end_session_endpoint: `${base}/oauth2/v2.0/logout`,
    jwks_uri: `${base}/discovery/v2.0/keys`,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
  });
}

function localCloudDiscoveryMetadata(authority: string): string {
  const host = new URL(authority).host;
  return JSON.stringify({
    tenant_discovery_endpoint: `https://${host}/{tenant}/v2.0/.well-known/openid-configuration`,
    'api-version': '1.1',
    metadata: [{ preferred_network: host, preferred_cache: host, aliases: [host] }],
  });
}

export function msalConfiguration(m365: M365Config, origin: string): Configuration {
  const host = new URL(m365.authority).host;
  return {
    auth: {
      clientId: m365.clientId,
      authority: m365.authority,
      knownAuthorities: [host],
      redirectUri: `${origin}${REDIRECT_BRIDGE_PATH}`,
      postLogoutRedirectUri: `${origin}${paths.m365Login}`,
      ...(m365.entraUrl
        ? {
            authorityMetadata: localAuthorityMetadata(m365.entraUrl, m365.authority),
            cloudDiscoveryMetadata: localCloudDiscoveryMetadata(m365.authority),
          }
        : {}),
    },
    // Local storage: a Microsoft session survives a new tab, so a signed-in account signs in silently.
    cache: { cacheLocation: 'localStorage' },
  };
}
