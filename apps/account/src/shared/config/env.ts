import * as z from 'zod/mini';

// Runtime configuration: one build serves every application; /account/runtime-config.js sets
// window.__ACCOUNT_CONFIG__ before the bundle runs. Parsed once here; nothing else reads it.

export const applicationSchema = z.enum(['platform', 'magic']);
export type Application = z.infer<typeof applicationSchema>;
export const authModeSchema = z.enum(['ory', 'm365']);
export type AuthMode = z.infer<typeof authModeSchema>;

const httpUrl = z.string().check(z.regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, 'must be an http(s) URL'));

/**
 * Microsoft 365 sign-in (MAGIC only). `entraUrl` points MSAL at a local Entra stand-in (development
 * and tests); production leaves it out and MSAL talks to the real authority.
 */
export const m365ConfigSchema = z.object({
  /** The app registration's client id in Entra (also the Teams app's web-app id). */
  clientId: z.string().check(z.minLength(1)),
  authority: z.string().check(z.regex(/^https:\/\/[^\s/]+\/[^\s/]+$/, 'must be https://host/tenant')),
  entraUrl: z.optional(httpUrl),
  /** The offer's subscription set-up link, shown to cloud admins on subscription-required. */
  subscriptionUrl: httpUrl,
  /** Origins allowed to frame MAGIC besides Teams and Office (the development Teams host page). */
  extraFrameAncestors: z.array(httpUrl),
});
export type M365Config = z.infer<typeof m365ConfigSchema>;

export const accountConfigSchema = z.object({
  application: applicationSchema,
  appName: z.enum(['Platform', 'MAGIC']),
  clientId: z.string().check(z.minLength(1)),
  identityUrl: httpUrl,
  oauth2Url: httpUrl,
  usersUrl: httpUrl,
  agentUrl: httpUrl,
  cookieDomain: z.optional(z.string()),
  initialPage: z.literal('research'),
  supportEmail: z.string().check(z.minLength(3)),
  accessEmail: z.string().check(z.minLength(3)),
  urlMap: z.object({ platform: httpUrl, magic: httpUrl }),
  disableGitStep: z.boolean(),
  allowedAuthModes: z.optional(z.array(authModeSchema)),
  m365: z.optional(m365ConfigSchema),
});
export type AccountConfig = z.infer<typeof accountConfigSchema>;

declare global {
  interface Window {
    __ACCOUNT_CONFIG__?: unknown;
  }
}

export function parseConfig(raw: unknown): AccountConfig {
  const result = accountConfigSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`Invalid account app configuration: ${issues}`);
  }
  return Object.freeze(result.data);
}

let current: AccountConfig | null = null;

/** The configuration of this page; parsed from window.__ACCOUNT_CONFIG__ on first use. */
export function getConfig(): AccountConfig {
  current ??= parseConfig(window.__ACCOUNT_CONFIG__);
  return current;
}

/** Tests and the server inject a configuration directly. */
export function setConfig(config: AccountConfig): void {
  current = config;
}

/** The configured list, else local/MAGIC allow ory and m365 and every other application ory only. */
export function allowedAuthModes(config: AccountConfig): AuthMode[] {
  if (config.allowedAuthModes && config.allowedAuthModes.length > 0) return config.allowedAuthModes;
  return config.application === 'magic' ? ['ory', 'm365'] : ['ory'];
}

/** Development defaults (ARCHITECTURE "Default ports"). */
export function defaultConfig(application: Application): AccountConfig {
  return {
    application,
    appName: application === 'magic' ? 'MAGIC' : 'Platform',
    clientId: application,
    identityUrl: 'http://localhost:4433',
    oauth2Url: 'http://localhost:4444',
    usersUrl: 'http://localhost:4455',
    agentUrl: 'http://localhost:4466',
    initialPage: 'research',
    supportEmail: 'support@acme.test',
    accessEmail: 'access@acme.test',
    urlMap: { platform: 'http://localhost:4000', magic: 'http://localhost:4001' },
    disableGitStep: false,
    ...(application === 'magic' ? { m365: defaultM365Config() } : {}),
  };
}

/** MAGIC's Microsoft 365 sign-in in development: the demo app registration on the local Entra stand-in. */
export function defaultM365Config(): M365Config {
  return {
    clientId: '6f2d4c1a-8b3e-4f5d-9a7c-1e2b3c4d5e6f',
    authority: 'https://login.microsoftonline.com/organizations',
    entraUrl: 'http://localhost:4510',
    subscriptionUrl: 'http://localhost:4540/',
    extraFrameAncestors: [],
  };
}
