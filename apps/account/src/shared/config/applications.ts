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

/**
 * This deployment's configured lists of authentication modes (a configured list wins over the
 * built-in defaults of `allowedAuthModes`), as the app servers read them: `ALLOWED_AUTH_MODES=admin=ory+m365,…`. Unless
 * configured otherwise, the admin application allows m365 too, so that the admins of Microsoft 365
 * organisations (the marketplace purchasers among them) reach the organisation console.
 */
export const DEFAULT_ALLOWED_AUTH_MODES = 'admin=ory+m365';

export function parseAllowedAuthModes(value: string): Partial<Record<Application, AuthMode[]>> {
  const out: Partial<Record<Application, AuthMode[]>> = {};
  for (const entry of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name = '', modes = ''] = entry.split('=');
    const list = modes.split('+').map((m) => m.trim());
    if (
      !(APPLICATIONS as readonly string[]).includes(name) ||
      list.some((m) => !(AUTH_MODES as readonly string[]).includes(m))
    ) {
      throw new Error(`ALLOWED_AUTH_MODES: expected application=ory+m365, not "${entry}"`);
    }
    out[name as Application] = [...new Set(list as AuthMode[])];
  }
  return out;
}

/** The application needs Microsoft 365's set-up: it allows m365 by default or in its configured list. */
export function usesM365(
  application: Application,
  configured: Partial<Record<Application, AuthMode[]>>,
): boolean {
  return configured[application]?.includes('m365') ?? allowsM365ByDefault(application);
}
