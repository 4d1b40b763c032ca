// The account app server's settings, parsed once at start-up (main.ts). Every variable is optional;
// the defaults are `npm start`'s. A malformed one stops the process with one line naming it.
import {
  ConfigError,
  applyRenames,
  bindHostSchema,
  logLevelSchema,
  processEnvSchema,
  type PartSettings,
  type SettingRenames,
} from '@acme/service-kit/config';
import { tracingConfigured } from '@acme/service-kit/tracing-gate';
import { managementConfig, managementEnvSchema, type ManagementConfig } from '@acme/service-kit/management';
import { z } from 'zod';
import {
  APPLICATIONS,
  DEFAULT_ALLOWED_AUTH_MODES,
  defaultUrlMap,
  parseAllowedAuthModes,
  type Application,
  type AuthMode,
} from '../src/shared/config/applications.ts';
import { defaultM365Config } from '../src/shared/config/env.ts';
import { systemShape, USUAL_PORTS } from '@acme/system-shape';

/** The defaults: `npm start`'s shape. */
const DEV = systemShape().listeners;

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const isApplication = (name: string): name is Application => APPLICATIONS.includes(name as Application);

/** `name=value,…` keyed by application (an unknown application is refused). */
const perApplication = z.string().transform((value, ctx) => {
  const out: Partial<Record<Application, string>> = {};
  for (const pair of list(value)) {
    const at = pair.indexOf('=');
    const app = pair.slice(0, at);
    if (at <= 0 || !isApplication(app)) {
      ctx.addIssue({ code: 'custom', message: `unknown entry ${pair}` });
      return z.NEVER;
    }
    out[app] = pair.slice(at + 1);
  }
  return out;
});

const m365 = defaultM365Config();

const schema = z.object({
  ACCOUNT_APPS: z
    .string()
    .default(APPLICATIONS.join(','))
    .transform((value, ctx) => {
      const apps = list(value);
      const unknown = apps.find((app) => !isApplication(app));
      if (unknown !== undefined) {
        ctx.addIssue({ code: 'custom', message: `unknown application ${unknown}` });
        return z.NEVER;
      }
      return apps as Application[];
    })
    .describe('Applications this process serves, comma-separated (default: all eight).'),
  APP_URLS: perApplication
    .default({})
    .pipe(z.record(z.string(), z.url()))
    .describe(
      'Browser-facing origin per application: `platform=https://…,magic=https://…` (default: localhost, ports 4000–4007).',
    ),
  ACCOUNT_PORTS: perApplication
    .default({})
    .pipe(z.record(z.string(), z.coerce.number().int().min(0).max(65535)))
    .describe('Port each application listens on, when it is not the port of its URL: `platform=8080,…`.'),
  ACCOUNT_HOST: bindHostSchema.describe('Interface the applications bind (`0.0.0.0` in a container).'),
  IDENTITY_PUBLIC_URL: z
    .url()
    .default(DEV.identityPublic)
    .describe("The identity service's public API, as browsers reach it."),
  OAUTH2_PUBLIC_URL: z
    .url()
    .default(DEV.oauth2Public)
    .describe('The authorization server (issuer), as browsers reach it.'),
  USERS_PUBLIC_URL: z
    .url()
    .default(DEV.usersPublic)
    .describe("The user service's public API, as browsers reach it."),
  AGENT_PUBLIC_URL: z.url().default(DEV.agent).describe("The agent service's API, as browsers reach it."),
  M365_CLIENT_ID: z
    .string()
    .min(1)
    .default(m365.clientId)
    .describe("Microsoft 365 sign-in: our app registration's client id (also the Teams app's web-app id)."),
  M365_AUTHORITY_URL: z
    .url()
    .default(m365.entraUrl ?? DEV.entra)
    .describe("Microsoft Entra's base URL MSAL signs in at (the Entra stand-in in development)."),
  M365_OFFER_URL: z
    .url()
    .default(m365.subscriptionUrl)
    .describe("The offer's subscription set-up page, shown to admins where a subscription is missing."),
  ALLOWED_AUTH_MODES: z
    .string()
    .default(DEFAULT_ALLOWED_AUTH_MODES)
    .transform((value, ctx): Partial<Record<Application, AuthMode[]>> => {
      try {
        return parseAllowedAuthModes(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .describe(
      'Authentication modes per application beyond their defaults: `admin=ory+m365` (the console for Microsoft 365 organisations’ admins).',
    ),
  ACCOUNT_DIST_DIR: z
    .string()
    .optional()
    .describe('A prebuilt `vite build` of the app (the image has one); unset: it is built at start.'),
  LOG_LEVEL: logLevelSchema.describe('pino level of the JSON request logs.'),
  DEV_TEAMS_HOST: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      'Development only (refused in production): MAGIC also serves the Microsoft Teams host page stand-in, with tokens from M365_AUTHORITY_URL.',
    ),
});

/** Names these settings had before they were made one per setting across the parts. */
const RENAMES: SettingRenames = {
  AGENT_PUBLIC_URL: ['AGENT_URL'],
  M365_AUTHORITY_URL: ['ENTRA_URL'],
  M365_OFFER_URL: ['OFFER_URL', 'M365_SUBSCRIPTION_URL'],
};

/** Every setting of the account app server, for the generated reference. */
export const settings: PartSettings = {
  part: 'account',
  title: 'Account app server',
  schemas: [schema, managementEnvSchema('ACCOUNT', USUAL_PORTS.accountManagement), processEnvSchema],
  renames: RENAMES,
};

export interface AccountServerConfig {
  apps: Application[];
  host: string;
  /** Browser-facing origin of every application. */
  urlMap: Record<Application, string>;
  /** Listen port per application, when it differs from its URL's. */
  ports: Partial<Record<Application, number>>;
  identityUrl: string;
  oauth2Url: string;
  usersUrl: string;
  agentUrl: string;
  offerUrl: string;
  authModes: Partial<Record<Application, AuthMode[]>>;
  m365: { clientId: string; entraUrl: string; subscriptionUrl: string };
  distDir: string | undefined;
  devTeamsHost: boolean;
  logLevel: z.infer<typeof logLevelSchema>;
  /** The management listener (`ACCOUNT_MANAGEMENT_PORT`/`_HOST`, 9005). */
  management: ManagementConfig;
  /** Tracing is on (an OTLP endpoint is set): the browser is told to send `traceparent`. */
  tracing: boolean;
}

/** Parses the app server's environment once, at start-up. */
export function loadConfig(given: Record<string, string | undefined> = process.env): AccountServerConfig {
  const env = applyRenames('account', given, RENAMES);
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(set);
  if (!parsed.success)
    throw new ConfigError(`Invalid account app server configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  if (c.DEV_TEAMS_HOST === 'true' && env.NODE_ENV === 'production')
    throw new ConfigError('DEV_TEAMS_HOST is a development stand-in, refused in production');
  return Object.freeze({
    apps: c.ACCOUNT_APPS,
    host: c.ACCOUNT_HOST,
    urlMap: { ...defaultUrlMap(), ...(c.APP_URLS as Partial<Record<Application, string>>) },
    ports: c.ACCOUNT_PORTS as Partial<Record<Application, number>>,
    identityUrl: c.IDENTITY_PUBLIC_URL,
    oauth2Url: c.OAUTH2_PUBLIC_URL,
    usersUrl: c.USERS_PUBLIC_URL,
    agentUrl: c.AGENT_PUBLIC_URL,
    offerUrl: c.M365_OFFER_URL,
    authModes: c.ALLOWED_AUTH_MODES,
    m365: { clientId: c.M365_CLIENT_ID, entraUrl: c.M365_AUTHORITY_URL, subscriptionUrl: c.M365_OFFER_URL },
    distDir: c.ACCOUNT_DIST_DIR,
    devTeamsHost: c.DEV_TEAMS_HOST === 'true',
    logLevel: c.LOG_LEVEL,
    management: managementConfig('ACCOUNT', USUAL_PORTS.accountManagement, env),
    tracing: tracingConfigured(env),
  });
}
