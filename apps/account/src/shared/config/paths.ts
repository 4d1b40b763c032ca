import { tryDecodeJwtPayload } from '../oauth2/jwt.ts';
import { readToken } from '../oauth2/token-lifecycle.ts';
import type { InitialPageTable } from './env.ts';
import { selectInitialPage, WELCOME_PATH } from './select-initial-page.ts';

// Every path of the app, one place (account routes under /account).

export const BASE = '/account';

export const paths = {
  onboarding: `${BASE}/onboarding`,
  mfaSetup: `${BASE}/mfa-setup`,
  verification: `${BASE}/verification`,
  registration: `${BASE}/registration`,
  login: `${BASE}/login`,
  m365Login: `${BASE}/m365-login`,
  forgotPassword: `${BASE}/forgot-password`,
  profile: `${BASE}/profile`,
  consent: `${BASE}/consent`,
  device: `${BASE}/device`,
  callback: `${BASE}/callback`,
  logout: `${BASE}/logout`,
  m365Logout: `${BASE}/m365-logout`,
  error: `${BASE}/error`,
  accessDenied: `${BASE}/access-denied`,
  terms: `${BASE}/terms`,
  privacy: `${BASE}/privacy`,
  settings: `${BASE}/settings`,
  /** The SSO pop-up window opened from the Teams frame. */
  ssoPopup: `${BASE}/sso-popup`,
  research: '/research',
  welcome: WELCOME_PATH,
} as const;

/** The account page's sections, each also on its own page (`/account/settings/<section>`). */
export const SETTINGS_SECTIONS = [
  'profile',
  'language',
  'password',
  'two-factor',
  'passkeys',
  'sessions',
  'connected-apps',
  'linked-accounts',
] as const;
export type SettingsSectionId = (typeof SETTINGS_SECTIONS)[number];

export const SETTINGS_SECTION_PATHS: readonly string[] = SETTINGS_SECTIONS.map(
  (id) => `${paths.settings}/${id}`,
);

/** The organisation admin console (admin application): one screen for every path. */
export const CONSOLE_PATHS = {
  home: '/admin',
  members: '/admin/members',
  member: '/admin/member',
  invitations: '/admin/invitations',
  events: '/admin/events',
  apiClients: '/admin/api-clients',
  subscription: '/admin/subscription',
  networks: '/admin/networks',
  sso: '/admin/sso',
  scim: '/admin/scim',
  signup: '/admin/signup',
  webhooks: '/admin/webhooks',
} as const;

/** The console's Test sign-in callback (a pop-up): hands the provider's answer to its opener. */
export const CONSOLE_SSO_TEST_CALLBACK = '/admin/sso/test-callback';

/**
 * The initial page after sign-in for the stored token: the configured table picks it from
 * `ext.products` and `ext.scopeGroups` (default "research"); the welcome page when the organisation
 * has no subscription. Without a token, the table's default.
 */
export function initialPagePath(table: InitialPageTable): string {
  return selectInitialPage(table, tryDecodeJwtPayload(readToken()?.accessToken));
}

export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
