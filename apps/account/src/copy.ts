import { appEn } from './i18n/app.en.ts';
import { bindCatalogue } from './i18n/catalogue.ts';
import { currentLocale } from './i18n/locale.ts';

/**
 * Every text of the app's screens, in the active locale (English source: src/i18n/app.en.ts, other
 * locales beside it). Read a text where it is shown, never into a module-level constant, so that a
 * change of language shows at once.
 */
export const copy = bindCatalogue('app', appEn);

/** An authentication mode as users know it; a mode the app does not name is shown as it is. */
function modeName(mode: string): string {
  return mode === 'ory' || mode === 'm365' ? copy.accessDenied.modes[mode] : mode;
}

/** The unauthorised-mode text: the mode used, and the ones allowed as a list of alternatives. */
export function accessModeText(app: string, mode: string, allowed: readonly string[]): string {
  const list = new Intl.ListFormat(currentLocale(), { type: 'disjunction' });
  return copy.accessDenied.mode(app, modeName(mode), list.format(allowed.map(modeName)));
}
