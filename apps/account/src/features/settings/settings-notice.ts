import type { Locale } from '@acme/i18n';
import { currentLocale } from '../../i18n/locale.ts';

/** The account page's sections that say what an action did. */
export type SettingsSection =
  'profile' | 'language' | 'password' | 'twoFactor' | 'passkeys' | 'sessions' | 'linked' | 'apps';

/** What an action did, said in its section. */
export interface SettingsNotice {
  section: SettingsSection;
  text: string;
}

// A change of language renders the app anew (LocaleRoot), and the account page's state goes with it:
// the notice that says the language was saved is handed to the page the new language renders, which
// reads its text then, in that language.

let pending: { locale: Locale; section: SettingsSection; text: () => string } | null = null;

/** Keeps a notice for the account page that mounts once `locale` is active. */
export function handOverNotice(locale: Locale, section: SettingsSection, text: () => string): void {
  pending = { locale, section, text };
}

/** The notice handed over, worded in the active locale (none if another locale is active). */
export function handedOverNotice(): SettingsNotice | null {
  return pending?.locale === currentLocale() ? { section: pending.section, text: pending.text() } : null;
}

/** Once shown (or not wanted any more), the notice is gone. */
export function clearHandedOverNotice(): void {
  pending = null;
}
