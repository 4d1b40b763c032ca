import { isDatabaseUnavailable } from '@acme/db';
import { DATABASE_UNAVAILABLE } from './public/http.ts';
import { forwardedFromIssuer } from './public/forwarded.ts';
import Provider, { type Configuration, type KoaContextWithOIDC, type ErrorOut } from 'oidc-provider';
import { outboundFetch } from '@acme/service-kit/outbound';
import { clientCredentialsClaims, extraClientMetadata } from './api-clients.ts';
import { AUTH_METHODS } from './clients/client-document.ts';
import { checkAudience, defaultAudience } from './audiences.ts';
import { clientLifespan } from './clients/client-lifespans.ts';
import { acceptHashedClientSecrets } from './clients/client-secrets.ts';
import { appUrls } from './config.ts';
import {
  ACCESS_TOKEN_RESOURCE,
  SUPPORTED_SCOPES,
  clientById,
  defaultClient,
  deviceClientById,
  type OAuth2Context,
} from './context.ts';
import { logoutSource, postLogoutSuccessSource } from './interactions/logout.ts';
import { skipFirstPartyConsent } from './interactions/consent.ts';
import { interactionPolicyFor } from './interactions/login-policy.ts';
import { checkGrantAtTokenRequest } from './grant-guard.ts';
import { DEVICE_ROUTES, deviceFlowSources, deviceInteractionOrigin, devicePage } from './device/device.ts';

/** Hydra's public routes on oidc-provider. */
export const ROUTES = {
  authorization: '/oauth2/auth',
  token: '/oauth2/token',
  end_session: '/oauth2/sessions/logout',
  revocation: '/oauth2/revoke',
  userinfo: '/userinfo',
  jwks: '/.well-known/jwks.json',
  ...DEVICE_ROUTES,
} as const;

/** Hydra prefixes; the app tells our codes from source-code-host codes by them. */
const PREFIXES = { AuthorizationCode: 'ory_ac_', RefreshToken: 'ory_rt_', DeviceCode: 'ory_dc_' } as const;

/** Errors are OAuth2 JSON; never the library's HTML page (which echoes details). */
async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): Promise<void> {
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: out.error, error_description: out.error_description ?? '' };
}

export function createProvider(c: OAuth2Context): Provider {
  const { config } = c;
  const ttl = config.ttl;

  const configuration: Configuration = {
    adapter: c.adapters.factory,
    // Every client, the platform's own applications included, is read from the database at each
    // request (clients/client-store.ts): no static client, so a change holds at once everywhere.
    clients: [],
    // Hydra's client fields beyond oidc-provider's (client-document.ts); `metadata.ext` becomes a
    // client-credentials token's ext.
    extraClientMetadata,
    clientAuthMethods: [...AUTH_METHODS],
    // A client's jwks_uri is fetched under the outbound guard (https, public addresses, no redirects).
    fetch: outboundFetch(config.jwksUriPolicy) as unknown as Configuration['fetch'],
    jwks: c.keys.jwks as Configuration['jwks'],
    cookies: {
      keys: c.keys.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: ROUTES,
    scopes: [...SUPPORTED_SCOPES],
    // Hydra's `audience` parameter of the authorization endpoint (audiences.ts).
    extraParams: ['audience'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    claims: { openid: ['sub'], sid: null, auth_time: null, acr: null, iss: null },
    findAccount: async (_ctx, sub, token) => {
      // At each refresh, and at a device code's exchange (from the device's address), the grant
      // must still stand for a live identity session and a user inside their trusted networks.
      const checked = token?.kind === 'RefreshToken' || token?.kind === 'DeviceCode';
      if (checked && !(await checkGrantAtTokenRequest(c, token))) return undefined;
      return { accountId: sub, claims: async () => ({ sub }) };
    },
    interactions: {
      policy: interactionPolicyFor(c),
      url: async (ctx, interaction) => {
        const deviceClient = deviceClientById(
          config,
          ctx.oidc.client?.clientId ?? interaction.params.client_id,
        );
        if (deviceClient) {
          // RFC 8628 §5.4: the person always sees what the device asks for (no consent skip).
          // Both prompts go to the device page, which picks the sign-in (identity session or
          // Microsoft 365) and shows the consent.
          const origin = await deviceInteractionOrigin(c, {
            deviceCode: interaction.deviceCode,
            clientId: interaction.params.client_id,
            login: interaction.lastSubmission?.login,
          });
          return devicePage(origin, { [`${interaction.prompt.name}_challenge`]: interaction.uid });
        }
        // The platform's own application signs in on its own pages; any other client on the
        // default application's (the login and consent screens).
        const clientId = ctx.oidc.client?.clientId ?? interaction.params.client_id;
        const urls = appUrls(clientById(config, clientId) ?? defaultClient(config));
        const uid = encodeURIComponent(interaction.uid);
        const skipConsent = (ctx.oidc.client as { skip_consent?: boolean } | undefined)?.skip_consent;
        if (interaction.prompt.name === 'consent' && skipConsent === true) {
          const skipped = await skipFirstPartyConsent({ ...c, provider }, interaction);
          if (skipped) return skipped;
        }
        return interaction.prompt.name === 'login'
          ? `${urls.login}?login_challenge=${uid}`
          : `${urls.consent}?consent_challenge=${uid}`;
      },
    },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: {
        enabled: config.deviceClients.length > 0,
        charset: 'base-20',
        mask: '****-****',
        ...deviceFlowSources(c),
      },
      clientCredentials: { enabled: true },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      // Hydra introspects on the admin port (our own route, admin/server.ts).
      introspection: { enabled: false },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: logoutSource(c),
        postLogoutSuccessSource: postLogoutSuccessSource(c),
      },
      resourceIndicators: {
        enabled: true,
        // A request naming no resource asks for Hydra's `audience`, else the platform's APIs.
        defaultResource: (ctx, _client, oneOf) => (oneOf ? ACCESS_TOKEN_RESOURCE : defaultAudience(ctx)),
        useGrantedResource: () => true,
        // A token is good for one resource: the platform's APIs, or one configured resource server
        // (the agent service's MCP endpoint), which each refuse the other's tokens by audience; and
        // only for one the client's `audience` allow-list holds (audiences.ts).
        getResourceServerInfo: (ctx, indicator, client) => {
          checkAudience(config, ctx, indicator, client as { audience?: string[] });
          return {
            scope: SUPPORTED_SCOPES.join(' '),
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: ttl.accessToken,
            jwt: { sign: { alg: config.accessTokenAlg } },
          };
        },
      },
    },
    clientBasedCORS: (_ctx, origin, client) =>
      ((client as { allowed_cors_origins?: string[] }).allowed_cors_origins ?? []).includes(origin) ||
      (client.clientAuthMethod === 'none' &&
        (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin)),
    extraTokenClaims: (ctx, token) =>
      token.kind === 'ClientCredentials'
        ? clientCredentialsClaims(ctx, token, c.claimsSource)
        : c.claims.extraTokenClaims(ctx, token),
    formats: { customizers: { jwt: (ctx, token, jwt) => c.claims.customizeJwt(ctx, token, jwt) } },
    rotateRefreshToken: true,
    ttl: {
      // A client's own lifespans (Hydra's `<grant>_grant_<token>_lifespan`) win over the server's.
      AccessToken: (ctx, _token, client) =>
        clientLifespan(client, ctx?.oidc?.params?.grant_type, 'access_token') ?? ttl.accessToken,
      AuthorizationCode: ttl.authorizationCode,
      ClientCredentials: (ctx, _token, client) =>
        clientLifespan(client, ctx?.oidc?.params?.grant_type, 'access_token') ?? ttl.accessToken,
      IdToken: (ctx, _token, client) =>
        clientLifespan(client, ctx?.oidc?.params?.grant_type, 'id_token') ?? ttl.idToken,
      // Idle limit (the client's own, else the server's), capped by the grant's absolute limit.
      RefreshToken: (ctx, _token, client) => {
        const idle =
          clientLifespan(client, ctx?.oidc?.params?.grant_type, 'refresh_token') ?? ttl.refreshToken;
        const grantExp = ctx?.oidc?.entities?.Grant?.exp;
        const left = typeof grantExp === 'number' ? grantExp - Math.floor(Date.now() / 1000) : idle;
        return Math.max(1, Math.min(idle, left));
      },
      Interaction: ttl.interaction,
      // Per device client when it sets `code_ttl_seconds` (OAUTH2_DEVICE_CLIENTS), else OAUTH2_DEVICE_CODE_TTL.
      DeviceCode: (_ctx, _token, client) =>
        deviceClientById(config, client?.clientId)?.code_ttl_seconds ?? config.device.codeTtl,
      Session: ttl.session,
      Grant: ttl.grant,
    },
    renderError,
    enableHttpPostMethods: false,
  };

  // The interaction hook above reads `provider`; it only runs once construction is done.
  const provider = new Provider(config.issuer, configuration);
  // Koa reads the scheme from X-Forwarded-Proto, which forwardedFromIssuer sets from the issuer
  // (it also sets Host and the client's address: nothing published comes from client headers).
  provider.proxy = true;
  provider.use(forwardedFromIssuer(config.issuer, config.trustProxy));
  acceptHashedClientSecrets(provider, c.clock);

  for (const [model, prefix] of Object.entries(PREFIXES)) {
    const proto = provider[model as keyof typeof PREFIXES].prototype as unknown as {
      generateTokenId(this: unknown): string;
    };
    const original = proto.generateTokenId;
    proto.generateTokenId = function prefixed(this: unknown) {
      return `${prefix}${original.call(this)}`;
    };
  }

  provider.on('server_error', (ctx: { state: Record<string, unknown> }, err: Error) => {
    // A database that is away is answered 503 with Retry-After by the outermost middleware.
    if (isDatabaseUnavailable(err)) {
      ctx.state[DATABASE_UNAVAILABLE] = true;
      return;
    }
    c.logger.error({ err: { name: err.name, message: err.message } }, 'oidc-provider server_error');
  });

  return provider;
}
