import { copy } from '../../copy.ts';
import { paths, SETTINGS_SECTIONS, type SettingsSectionId } from '../../shared/config/paths.ts';
import { shellCopy } from '../../shared/shell/shell-copy.ts';
import type { ShellNav } from '../../shared/shell/app-shell.tsx';
import type { SettingsSections } from './select-settings-sections.ts';

/** Each section's name (its heading on the page, and its entry in the navigation). */
const SECTION_TITLES: Readonly<Record<SettingsSectionId, string>> = {
  get profile() {
    return copy.settings.profile;
  },
  get language() {
    return copy.settings.language;
  },
  get password() {
    return copy.settings.password;
  },
  get 'two-factor'() {
    return copy.settings.twoFactor;
  },
  get passkeys() {
    return copy.passkeys.title;
  },
  get sessions() {
    return copy.settings.sessions;
  },
  get 'connected-apps'() {
    return copy.settings.connectedApps;
  },
  get 'linked-accounts'() {
    return copy.settings.linkedAccounts;
  },
};

/** The section of an account-page path (`/account/settings/<section>`), or null for the whole page. */
export function settingsSectionOfPath(pathname: string): SettingsSectionId | null {
  const id = pathname.replace(/\/+$/, '').slice(paths.settings.length + 1);
  return (SETTINGS_SECTIONS as readonly string[]).includes(id) ? (id as SettingsSectionId) : null;
}

/** The sections this person's page shows, in the page's order. */
export function availableSettingsSections(
  sections: SettingsSections,
  password: SettingsSections['password'],
  hasApps: boolean,
): SettingsSectionId[] {
  const shown: Record<SettingsSectionId, boolean> = {
    profile: true,
    // Saved in the identity's traits: people without an identity (Microsoft 365) have none to keep it.
    language: sections.kind !== 'm365',
    password: password !== 'none',
    'two-factor': sections.twoFactor !== 'none',
    passkeys: sections.kind === 'identity',
    sessions: sections.sessions,
    'connected-apps': hasApps,
    'linked-accounts': sections.linkedAccount !== 'none',
  };
  return SETTINGS_SECTIONS.filter((id) => shown[id]);
}

/** The account page's navigation: the whole page first, then each section; the open one current. */
export function selectSettingsNav(
  available: readonly SettingsSectionId[],
  current: SettingsSectionId | null,
): ShellNav {
  return {
    label: shellCopy.settingsNav,
    items: [
      { href: paths.settings, label: shellCopy.allSettings, current: current === null },
      ...available.map((id) => ({
        href: `${paths.settings}/${id}`,
        label: SECTION_TITLES[id],
        current: current === id,
      })),
    ],
  };
}
