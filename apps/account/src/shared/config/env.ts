import * as z from 'zod/mini';

// Runtime configuration: one build serves every application; /account/runtime-config.js sets
// window.__ACCOUNT_CONFIG__ before the bundle runs. Parsed once here; nothing else reads it.

export const applicationSchema = z.enum(['platform', 'magic']);
export type Application = z.infer<typeof applicationSchema>;
export const authModeSchema = z.enum(['ory', 'm365']);
export type AuthMode = z.infer<typeof authModeSchema>;

const httpUrl = z.string().check(z.regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, 'must be an http(s) URL'));

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
  };
}
