// The eight applications one build serves. Each runs on its own origin with its own public OAuth2
// client (client id = the application id); which one a page is comes from runtime configuration.

export const APPLICATIONS = [
  'platform',
  'magic',
  'admin',
  'dashboard',
  'local',
  'ai',
  'ai-sandbox',
  'ai-uat',
] as const;
export type Application = (typeof APPLICATIONS)[number];

export const AUTH_MODES = ['ory', 'm365'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface ApplicationDefaults {
  /** Shown to users ("Return to the product …"). */
  name: string;
  /** Development port: consecutive from 4000 in this table's order. */
  port: number;
  /** Authentication modes allowed when none are configured: local and MAGIC allow m365 too. */
  authModes: readonly AuthMode[];
  /** Products the application's pages require (at least one) when none are configured. */
  requiredProducts: readonly string[];
}

export const APPLICATION_DEFAULTS: Readonly<Record<Application, ApplicationDefaults>> = {
  platform: { name: 'Platform', port: 4000, authModes: ['ory'], requiredProducts: ['Platform'] },
  magic: { name: 'MAGIC', port: 4001, authModes: ['ory', 'm365'], requiredProducts: ['MAGIC'] },
  admin: { name: 'admin', port: 4002, authModes: ['ory'], requiredProducts: [] },
  dashboard: { name: 'dashboard', port: 4003, authModes: ['ory'], requiredProducts: [] },
  local: { name: 'local', port: 4004, authModes: ['ory', 'm365'], requiredProducts: [] },
  ai: { name: 'AI', port: 4005, authModes: ['ory'], requiredProducts: [] },
  'ai-sandbox': { name: 'AI sandbox', port: 4006, authModes: ['ory'], requiredProducts: [] },
  'ai-uat': { name: 'AI UAT', port: 4007, authModes: ['ory'], requiredProducts: [] },
};

/**
 * Applications that allow Microsoft 365 sign-in by default (MAGIC and local) come with its set-up
 * (the `m365` runtime configuration); the others have none unless configured.
 */
export function allowsM365ByDefault(application: Application): boolean {
  return APPLICATION_DEFAULTS[application].authModes.includes('m365');
}

/** Every application's development origin (the URL map's default). */
export function defaultUrlMap(host = 'http://localhost', portOffset = 0): Record<Application, string> {
  return Object.fromEntries(
    APPLICATIONS.map((app) => [app, `${host}:${APPLICATION_DEFAULTS[app].port + portOffset}`]),
  ) as Record<Application, string>;
}
