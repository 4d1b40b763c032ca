import { NETWORK_NOT_TRUSTED } from '@acme/users-contract/networks';
import { copy } from '../../copy.ts';
import { CONSOLE_PATHS } from '../../shared/config/paths.ts';
import type { Me } from './console-client.ts';

// Which admin console screen a path shows, or why not. Pure: the application, the path and what
// `/console/me` answered (the caller's permissions come from the user service's database).

/** Every console path but the home page names a section. */
type Section = Exclude<keyof typeof CONSOLE_PATHS, 'home'>;

/** The permissions each section needs (the same table as docs/architecture.md). */
const SECTION_PERMISSIONS: Readonly<Record<Section, readonly string[]>> = {
  members: ['ViewUsers'],
  member: ['ViewUsers'],
  invitations: ['ManageOrganisationUsers'],
  events: ['ManageOrganisationSettings'],
  // Every role holds ManageAccessTokens (a person's own tokens); the organisation's clients are
  // an organisation setting besides.
  apiClients: ['ManageAccessTokens', 'ManageOrganisationSettings'],
  subscription: ['MagicManageOrganisationBilling'],
  networks: ['ManageIPWhitelist'],
  sso: ['ConfigureSSO'],
  // Tokens that create and remove accounts: the same permission as inviting and deactivating.
  scim: ['ManageOrganisationUsers'],
  signup: ['ManageOrganisationSettings'],
  // Endpoints that receive the organisation's events: an organisation setting.
  webhooks: ['ManageOrganisationSettings'],
};

/** The sections of the navigation, in order. */
const NAV_SECTIONS: readonly Section[] = [
  'members',
  'invitations',
  'sso',
  'scim',
  'signup',
  'apiClients',
  'networks',
  'events',
  'webhooks',
  'subscription',
];

const mayOpen = (permissions: readonly string[], section: Section) =>
  SECTION_PERMISSIONS[section].every((p) => permissions.includes(p));

export type MeState =
  | { state: 'loading' }
  | { state: 'error'; status: number | null; message: string; errorCode?: string }
  | { state: 'ready'; me: Me };

export type ConsoleView =
  | { type: 'loading' }
  | { type: 'error'; message: string }
  | { type: 'denied' }
  | { type: 'redirect'; to: string }
  | { type: 'section'; section: Section; me: Me; nav: Section[] };

const SECTION_OF_PATH: ReadonlyMap<string, Section | 'home'> = new Map(
  Object.entries(CONSOLE_PATHS).map(([section, path]) => [path, section as Section | 'home']),
);

function sectionOfPath(path: string): Section | 'home' | null {
  return SECTION_OF_PATH.get(path) ?? null;
}

function allowedSections(permissions: readonly string[]): Section[] {
  return NAV_SECTIONS.filter((s) => mayOpen(permissions, s));
}

export function selectConsoleView(input: { application: string; path: string; me: MeState }): ConsoleView {
  const section = sectionOfPath(input.path);
  // The console belongs to the admin application only; elsewhere its paths are denied.
  if (input.application !== 'admin' || section === null) return { type: 'denied' };
  if (input.me.state === 'loading') return { type: 'loading' };
  if (input.me.state === 'error') {
    // Outside the organisation's trusted networks the console answers nothing: say why.
    if (input.me.errorCode === NETWORK_NOT_TRUSTED)
      return { type: 'error', message: copy.errors.networkNotTrusted };
    return input.me.status === 403 ? { type: 'denied' } : { type: 'error', message: input.me.message };
  }
  const { me } = input.me;
  const nav = allowedSections(me.permissions);
  if (section === 'home') {
    const first = nav[0];
    return first ? { type: 'redirect', to: CONSOLE_PATHS[first] } : { type: 'denied' };
  }
  if (!mayOpen(me.permissions, section)) return { type: 'denied' };
  return { type: 'section', section, me, nav };
}
