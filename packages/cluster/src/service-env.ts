// Every part's environment, built in one place from the system's shape (@acme/system-shape) for
// both launchers: the one-process system (`scripts/system.ts`, which passes it to each service's
// `start` and parses the stand-ins' and the account app server's with their own settings) and the
// process cluster (`system.ts` here, which passes it to each child process).
import { APPLICATIONS as APPS, type Listener, type Part, type Ports } from '@acme/system-shape';

export interface PartEnvOptions {
  /** Client secret of the identity service at the organisation IdP stand-in (the seed stores it). */
  orgIdpClientSecret?: string | undefined;
  /** A prebuilt account app (`vite build` output). */
  accountDistDir?: string | undefined;
  /** `SMTP_URL` of the identity and user services (a process's own mail sender); none in one process. */
  smtp?: string | undefined;
  /** The Microsoft 365 app registration, when it is set explicitly (else each service's default). */
  m365?: { clientId: string; clientSecret: string; publisherTenantId: string } | undefined;
}

/** Every admin API's key variable, set to the one key (none: loopback admin APIs). */
export function adminKeys(key: string | undefined): Record<string, string> {
  if (!key) return {};
  return {
    IDENTITY_ADMIN_KEY: key,
    OAUTH2_ADMIN_KEY: key,
    USERS_ADMIN_KEY: key,
    AGENT_ADMIN_KEY: key,
  };
}

/** The environment of one instance: its own ports, and everything else's browser-facing URLs. */
export function partEnv(
  part: Part,
  own: Ports,
  urls: Record<Listener, string>,
  options: PartEnvOptions = {},
): Record<string, string> {
  const appOrigins = APPS.map((app) => urls[app]);
  const smtp: Record<string, string> = options.smtp ? { SMTP_URL: options.smtp } : {};
  const m365 = options.m365;
  const orgIdpCallback = `${urls.identityPublic}/self-service/methods/oidc/callback/globex`;
  switch (part) {
    case 'identity':
      return {
        IDENTITY_PUBLIC_PORT: String(own.identityPublic),
        IDENTITY_ADMIN_PORT: String(own.identityAdmin),
        IDENTITY_MANAGEMENT_PORT: String(own.identityManagement),
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        IDENTITY_ADMIN_URL: urls.identityAdmin,
        IDENTITY_LOGIN_UI_URL: `${urls.platform}/account/login`,
        IDENTITY_ERROR_UI_URL: `${urls.platform}/account/error`,
        IDENTITY_SETTINGS_UI_URL: `${urls.platform}/account/profile`,
        IDENTITY_RECOVERY_UI_URL: `${urls.platform}/account/forgot-password`,
        IDENTITY_VERIFICATION_UI_URL: `${urls.platform}/account/verification`,
        IDENTITY_REGISTRATION_UI_URL: `${urls.platform}/account/registration`,
        IDENTITY_DEFAULT_RETURN_URL: `${urls.platform}/`,
        IDENTITY_CORS_ORIGINS: appOrigins.join(','),
        IDENTITY_ALLOWED_RETURN_URLS: [...appOrigins, urls.oauth2Public].join(','),
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
        USERS_ADMIN_URL: urls.usersAdmin,
        // Sign-in through an organisation's provider reaches the development stand-ins (plain http on
        // loopback), as the console's SSO checks do.
        IDENTITY_SSO_HTTP_HOSTS: 'localhost',
        IDENTITY_SSO_ALLOW_PRIVATE: 'true',
        ...smtp,
      };
    case 'oauth2':
      return {
        OAUTH2_PUBLIC_URL: urls.oauth2Public,
        OAUTH2_PUBLIC_PORT: String(own.oauth2Public),
        OAUTH2_ADMIN_PORT: String(own.oauth2Admin),
        OAUTH2_MANAGEMENT_PORT: String(own.oauth2Management),
        APP_ORIGINS: APPS.map((app) => `${app}=${urls[app]}`).join(','),
        USERS_ADMIN_URL: urls.usersAdmin,
        // An assistant on this machine registers itself (loopback redirect URIs only) and asks for
        // tokens for the agent service's MCP endpoint.
        OAUTH2_REGISTRATION: 'loopback',
        // …or names itself by the URL of its client ID metadata document.
        OAUTH2_CLIENT_ID_METADATA_DOCUMENTS: 'true',
        OAUTH2_RESOURCE_SERVERS: `${urls.agent}/mcp`,
      };
    case 'users':
      return {
        USERS_PUBLIC_PORT: String(own.usersPublic),
        USERS_ADMIN_PORT: String(own.usersAdmin),
        USERS_MANAGEMENT_PORT: String(own.usersManagement),
        // The SCIM base URL the console shows: the proxy a directory reaches, not this instance.
        USERS_PUBLIC_URL: urls.usersPublic,
        IDENTITY_ADMIN_URL: urls.identityAdmin,
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        APP_ORIGINS: appOrigins.join(','),
        APP_BASE_URL: urls.platform,
        GIT_OAUTH_AUTHORIZE_URL: `${urls.standIns}/github/login/oauth/authorize`,
        GIT_OAUTH_TOKEN_URL: `${urls.standIns}/github/login/oauth/access_token`,
        GIT_API_URL: `${urls.standIns}/github/api`,
        M365_AUTHORITY_URL: urls.entra,
        ...(m365
          ? {
              M365_CLIENT_ID: m365.clientId,
              M365_CLIENT_SECRET: m365.clientSecret,
              M365_PUBLISHER_TENANT_ID: m365.publisherTenantId,
            }
          : {}),
        M365_OFFER_URL: `${urls.marketplace}/`,
        GRAPH_URL: urls.graph,
        MARKETPLACE_API_URL: urls.marketplace,
        AGENT_PUBLIC_URL: urls.agent,
        // The console's SSO checks reach the development stand-ins (plain http on loopback).
        CONSOLE_SSO_HTTP_HOSTS: 'localhost',
        CONSOLE_SSO_ALLOW_PRIVATE: 'true',
        CONSOLE_SSO_TEST_REDIRECT_URI: `${urls.admin}/admin/sso/test-callback`,
        // Webhooks reach receivers on this machine (development only; production refuses them).
        WEBHOOK_HTTP_HOSTS: 'localhost,127.0.0.1',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        ...smtp,
      };
    case 'agent':
      return {
        AGENT_PUBLIC_PORT: String(own.agent),
        AGENT_ADMIN_PORT: String(own.agentAdmin),
        AGENT_MANAGEMENT_PORT: String(own.agentManagement),
        APP_ORIGINS: appOrigins.join(','),
        // The MCP endpoint: its public URL (its tokens' audience) and the authorization server.
        AGENT_PUBLIC_URL: urls.agent,
        OAUTH2_PUBLIC_URL: urls.oauth2Public,
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
        // It verifies the caller's Microsoft token as the user service does.
        M365_AUTHORITY_URL: urls.entra,
        ...(m365 ? { M365_CLIENT_ID: m365.clientId } : {}),
      };
    case 'account':
      return {
        APP_URLS: APPS.map((app) => `${app}=${urls[app]}`).join(','),
        ACCOUNT_PORTS: APPS.map((app) => `${app}=${own[app]}`).join(','),
        ACCOUNT_MANAGEMENT_PORT: String(own.accountManagement),
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        OAUTH2_PUBLIC_URL: urls.oauth2Public,
        USERS_PUBLIC_URL: urls.usersPublic,
        AGENT_PUBLIC_URL: urls.agent,
        M365_AUTHORITY_URL: urls.entra,
        M365_OFFER_URL: `${urls.marketplace}/`,
        // MAGIC's Teams host page stand-in, on MAGIC's origin (its tokens come from the Entra stand-in).
        DEV_TEAMS_HOST: 'true',
        ...(options.accountDistDir ? { ACCOUNT_DIST_DIR: options.accountDistDir } : {}),
      };
    case 'standIns':
      return {
        STANDINS_HTTP_PORT: String(own.standIns),
        STANDINS_SMTP_PORT: String(own.smtp),
        ENTRA_PORT: String(own.entra),
        GRAPH_PORT: String(own.graph),
        MARKETPLACE_PORT: String(own.marketplace),
        ORG_IDP_PORT: String(own.orgIdp),
        SAML_IDP_PORT: String(own.samlIdp),
        DEMO_APP_PORT: String(own.demoApp),
        DEMO_APP_ISSUER: urls.oauth2Public,
        DEMO_APP_OAUTH2_ADMIN_URL: urls.oauth2Admin,
        APP_ORIGINS: appOrigins.join(','),
        MARKETPLACE_LANDING_URL: `${urls.magic}/account/m365-login`,
        MARKETPLACE_WEBHOOK_URL: `${urls.usersPublic}/m365/marketplace/webhook`,
        ORG_IDP_REDIRECT_URI: orgIdpCallback,
        ...(options.orgIdpClientSecret ? { ORG_IDP_CLIENT_SECRET: options.orgIdpClientSecret } : {}),
      };
  }
}
