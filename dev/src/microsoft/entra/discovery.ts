import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GRAPH_RESOURCE_URL } from '../directory.ts';
import { cors, knownPathTenant, tenantForPath, type EntraCore } from './core.ts';
import { EntraError, sendError } from './errors.ts';

/** Entra's discovery endpoints: OpenID configuration per tenant, signing keys and instance discovery. */

const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'acr',
  'nonce',
  'preferred_username',
  'name',
  'tid',
  'ver',
  'at_hash',
  'c_hash',
  'email',
  'oid',
];

function openidConfiguration(core: EntraCore, request: FastifyRequest, reply: FastifyReply) {
  cors(request, reply);
  const { tenant } = request.params as { tenant: string };
  if (!knownPathTenant(core, tenant)) {
    return sendError(
      reply,
      new EntraError('invalid_tenant', 90002, `Tenant '${tenant}' not found.`),
      core.clock.now(),
    );
  }
  const record = tenantForPath(core, tenant);
  const issuerValue = record ? core.issuer(record.tenantId) : `${core.site.base}/{tenantid}/v2.0`;
  const at = `${core.site.base}/${encodeURIComponent(tenant)}`;
  return reply.send({
    token_endpoint: `${at}/oauth2/v2.0/token`,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
    jwks_uri: `${at}/discovery/v2.0/keys`,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    issuer: issuerValue,
    request_uri_parameter_supported: false,
    userinfo_endpoint: `${GRAPH_RESOURCE_URL}/oidc/userinfo`,
    authorization_endpoint: `${at}/oauth2/v2.0/authorize`,
    device_authorization_endpoint: `${at}/oauth2/v2.0/devicecode`,
    http_logout_supported: true,
    frontchannel_logout_supported: true,
    end_session_endpoint: `${at}/oauth2/v2.0/logout`,
    claims_supported: CLAIMS_SUPPORTED,
    kerberos_endpoint: `${at}/kerberos`,
    tenant_region_scope: 'EU',
    cloud_instance_name: 'microsoftonline.com',
    cloud_graph_host_name: 'graph.windows.net',
    msgraph_host: 'graph.microsoft.com',
    rbac_url: 'https://pas.windows.net',
  });
}

export function registerDiscovery(server: FastifyInstance, core: EntraCore): void {
  const discovery = (request: FastifyRequest, reply: FastifyReply) =>
    openidConfiguration(core, request, reply);
  server.get('/:tenant/v2.0/.well-known/openid-configuration', discovery);
  server.get('/:tenant/.well-known/openid-configuration', discovery);
  server.get('/:tenant/discovery/v2.0/keys', async (request, reply) => {
    cors(request, reply);
    return reply.header('cache-control', 'public, max-age=3600').send(core.publicJwks);
  });
  server.get('/common/discovery/instance', async (request, reply) => {
    cors(request, reply);
    // Microsoft's answer: the aliases are Microsoft's hosts, so MSAL (whose authority string stays
    // https://login.microsoftonline.com/…) matches it; only the discovery endpoint is ours.
    return reply.send({
      tenant_discovery_endpoint: `${core.site.base}/organizations/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [
        {
          preferred_network: 'login.microsoftonline.com',
          preferred_cache: 'login.windows.net',
          aliases: [
            'login.microsoftonline.com',
            'login.windows.net',
            'login.microsoft.com',
            'sts.windows.net',
          ],
        },
      ],
    });
  });
}
