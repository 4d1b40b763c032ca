import type { Translation } from '../../../i18n/catalogue.ts';
import type { shellEn } from './shell.en.ts';

// The signed-in shell's German texts: exactly the keys of shell.en.ts.

export const shellDe: Translation<typeof shellEn> = {
  personMenu: '{name}: Kontomenü',
  settings: 'Kontoeinstellungen',
  console: 'Konsole der Organisation',
  signOut: 'Abmelden',
  backTo: 'Zurück zu {application}',
  sectionsButton: '{label}: {current}',
  settingsNav: 'Bereiche der Kontoeinstellungen',
  allSettings: 'Alle Einstellungen',
  organisation: 'Organisation',
};
