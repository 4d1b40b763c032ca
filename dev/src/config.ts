import { z } from 'zod';
import type { PartSettings } from '@acme/service-kit/config';
import { APPLICATIONS, systemShape, USUAL_PORTS } from '@acme/system-shape';
import type { GitHubClient } from './github.ts';

/** The defaults: `npm start`'s shape. */
const { listeners: DEV, apps: DEV_APPS } = systemShape();

const port = z.coerce.number().int().min(0).max(65_535);

/**
 * `GITHUB_CLIENTS`: comma-separated `id:secret` pairs, optionally `id:secret@redirectUri`
 * (default `dev-client:dev-secret`).
 */
function parseClients(value: string): GitHubClient[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf('@');
      const creds = at < 0 ? entry : entry.slice(0, at);
      const redirect = at < 0 ? undefined : entry.slice(at + 1);
      const colon = creds.indexOf(':');
      if (colon <= 0 || colon === creds.length - 1)
        throw new Error('GITHUB_CLIENTS entries are id:secret[@redirectUri]');
      return {
        clientId: creds.slice(0, colon),
        clientSecret: creds.slice(colon + 1),
        ...(redirect ? { redirectUris: [new URL(redirect).toString()] } : {}),
      };
    });
}

const schema = z.object({
  STANDINS_HTTP_PORT: port
    .default(USUAL_PORTS.standIns)
    .describe('Port of the stand-ins’ web server (mailbox, GitHub).'),
  STANDINS_SMTP_PORT: port.default(USUAL_PORTS.smtp).describe('Port of the mail catcher (SMTP).'),
  STANDINS_PUBLIC_URL: z
    .url()
    .optional()
    .describe('Browser-facing base URL of the stand-ins (default: localhost on STANDINS_HTTP_PORT).'),
  GITHUB_CLIENTS: z
    .string()
    .default('dev-client:dev-secret')
    .transform((v, ctx) => {
      try {
        return parseClients(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .describe('OAuth apps of the GitHub stand-in: comma-separated `id:secret[@redirectUri]`.')
    .meta({ secret: true }),
});

export interface StandInsConfig {
  httpPort: number;
  smtpPort: number;
  publicUrl?: string;
  githubClients: GitHubClient[];
}

export function loadConfig(env: Record<string, string | undefined> = process.env): StandInsConfig {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.parse(clean);
  return {
    httpPort: parsed.STANDINS_HTTP_PORT,
    smtpPort: parsed.STANDINS_SMTP_PORT,
    ...(parsed.STANDINS_PUBLIC_URL ? { publicUrl: parsed.STANDINS_PUBLIC_URL.replace(/\/+$/, '') } : {}),
    githubClients: parsed.GITHUB_CLIENTS,
  };
}

const origins = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.url()));

const extrasSchema = z.object({
  ENTRA_PORT: port.default(USUAL_PORTS.entra).describe('Port of the Microsoft Entra stand-in.'),
  GRAPH_PORT: port.default(USUAL_PORTS.graph).describe('Port of the Microsoft Graph stand-in.'),
  MARKETPLACE_PORT: port
    .default(USUAL_PORTS.marketplace)
    .describe('Port of the Microsoft marketplace stand-in.'),
  ORG_IDP_PORT: port
    .default(USUAL_PORTS.orgIdp)
    .describe("Port of Globex's OpenID Connect identity provider stand-in."),
  SAML_IDP_PORT: port
    .default(USUAL_PORTS.samlIdp)
    .describe("Port of Initech's SAML identity provider stand-in."),
  DEMO_APP_PORT: port
    .default(USUAL_PORTS.demoApp)
    .describe('Port of the demo third-party app (signs a person in through consent).'),
  DEMO_APP_ISSUER: z
    .url()
    .default(DEV.oauth2Public)
    .describe('The authorization server the demo third-party app signs people in with (its issuer).'),
  DEMO_APP_OAUTH2_ADMIN_URL: z
    .url()
    .default(DEV.oauth2Admin)
    .describe("The authorization server's admin API, where the demo third-party app registers its client."),
  OAUTH2_ADMIN_KEY: z
    .string()
    .optional()
    .describe("The key of the authorization server's admin API (unset: a loopback admin API without one).")
    .meta({ secret: true }),
  APP_ORIGINS: origins
    .default(APPLICATIONS.map((app) => DEV_APPS[app]))
    .describe("The applications' origins, comma-separated (redirect URIs of the Entra app registration)."),
  MARKETPLACE_LANDING_URL: z
    .url()
    .default(`${DEV.magic}/account/m365-login`)
    .describe("The offer's landing page the marketplace stand-in sends buyers to."),
  MARKETPLACE_WEBHOOK_URL: z
    .url()
    .default(`${DEV.usersPublic}/m365/marketplace/webhook`)
    .describe('Where the marketplace stand-in posts subscription events.'),
  ORG_IDP_CLIENT_ID: z
    .string()
    .min(1)
    .default('acme-platform')
    .describe("The identity service's client id at Globex's identity provider stand-in."),
  ORG_IDP_CLIENT_SECRET: z
    .string()
    .min(16)
    .optional()
    .describe('Its client secret (the seed stores the same); unset: the provider has no client.')
    .meta({ secret: true }),
  ORG_IDP_REDIRECT_URI: z
    .url()
    .default(`${DEV.identityPublic}/self-service/methods/oidc/callback/globex`)
    .describe("The identity service's callback registered at that provider."),
});

/** Every setting of the stand-ins' process (`npm start -w @acme/dev`), for the generated reference. */
export const settings: PartSettings = {
  part: 'standins',
  title: 'Development stand-ins (third parties: mail, GitHub, Microsoft, identity providers)',
  schemas: [schema, extrasSchema],
  renames: {},
};

/** The Microsoft stand-ins (Entra, Graph, marketplace) and Globex's identity provider, as `main.ts` runs them. */
export interface StandInExtrasConfig {
  entraPort: number;
  graphPort: number;
  marketplacePort: number;
  orgIdpPort: number;
  samlIdpPort: number;
  demoApp: { port: number; issuer: string; oauth2AdminUrl: string; oauth2AdminKey: string | undefined };
  appOrigins: string[];
  marketplace: { landingPageUrl: string; webhookUrl: string };
  /** Absent without ORG_IDP_CLIENT_SECRET: the IdP then has no client. */
  orgIdpClient?: { clientId: string; clientSecret: string; redirectUris: string[] };
}

export function loadExtrasConfig(env: Record<string, string | undefined> = process.env): StandInExtrasConfig {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const e = extrasSchema.parse(clean);
  return {
    entraPort: e.ENTRA_PORT,
    graphPort: e.GRAPH_PORT,
    marketplacePort: e.MARKETPLACE_PORT,
    orgIdpPort: e.ORG_IDP_PORT,
    samlIdpPort: e.SAML_IDP_PORT,
    demoApp: {
      port: e.DEMO_APP_PORT,
      issuer: e.DEMO_APP_ISSUER.replace(/\/+$/, ''),
      oauth2AdminUrl: e.DEMO_APP_OAUTH2_ADMIN_URL.replace(/\/+$/, ''),
      oauth2AdminKey: e.OAUTH2_ADMIN_KEY,
    },
    appOrigins: e.APP_ORIGINS.map((o) => new URL(o).origin),
    marketplace: { landingPageUrl: e.MARKETPLACE_LANDING_URL, webhookUrl: e.MARKETPLACE_WEBHOOK_URL },
    ...(e.ORG_IDP_CLIENT_SECRET
      ? {
          orgIdpClient: {
            clientId: e.ORG_IDP_CLIENT_ID,
            clientSecret: e.ORG_IDP_CLIENT_SECRET,
            redirectUris: [e.ORG_IDP_REDIRECT_URI],
          },
        }
      : {}),
  };
}
