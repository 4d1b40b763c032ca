// The eight applications one build serves. Each runs on its own origin with its own public OAuth2
// client (client id = the application id); which one a page is comes from runtime configuration.
// Their ids and development origins are the system's shape (@acme/system-shape); what each one is
// to a person (name, sign-in modes, products) is here.
import { APPLICATIONS, type Application } from '@acme/system-shape';

export { APPLICATIONS, defaultUrlMap, type Application } from '@acme/system-shape';

export const AUTH_MODES = ['ory', 'm365'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface ApplicationDefaults {
  /** Shown to users ("Return to the product …"). */
  name: string;
  /** Authentication modes allowed when none are configured: local and MAGIC allow m365 too. */
  authModes: readonly AuthMode[];
  /** Products the application's pages require (at least one) when none are configured. */
  requiredProducts: readonly string[];
}

export const APPLICATION_DEFAULTS: Readonly<Record<Application, ApplicationDefaults>> = {
  platform: { name: 'Platform', authModes: ['ory'], requiredProducts: ['Platform'] },
  magic: { name: 'MAGIC', authModes: ['ory', 'm365'], requiredProducts: ['MAGIC'] },
  admin: { name: 'admin', authModes: ['ory'], requiredProducts: [] },
  dashboard: { name: 'dashboard', authModes: ['ory'], requiredProducts: [] },
  local: { name: 'local', authModes: ['ory', 'm365'], requiredProducts: [] },
  ai: { name: 'AI', authModes: ['ory'], requiredProducts: [] },
  'ai-sandbox': { name: 'AI sandbox', authModes: ['ory'], requiredProducts: [] },
  'ai-uat': { name: 'AI UAT', authModes: ['ory'], requiredProducts: [] },
};

/**
 * Applications that allow Microsoft 365 sign-in by default (MAGIC and local) come with its set-up
 * (the `m365` runtime configuration); the others have none unless configured.
 */
export function allowsM365ByDefault(application: Application): boolean {
  return APPLICATION_DEFAULTS[application].authModes.includes('m365');
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
