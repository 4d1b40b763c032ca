import type { Translation } from '../../../i18n/catalogue.ts';
import type { consentEn } from './consent.en.ts';

// The consent screen's German texts: exactly the keys of consent.en.ts.

export const consentDe: Translation<typeof consentEn> = {
  title: 'Darf {app} Sie anmelden?',
  registeredByOrganisation: 'Registriert von {organisation}.',
  registeredByOperator: 'Registriert vom Betreiber der Plattform.',
  asks: '{app} bittet um diesen Zugriff:',
  signsInFor: 'Sie melden sich für {organisation} an.',
  remembered:
    'Wir merken uns Ihre Antwort für diese App, bis Sie sie in Ihren Kontoeinstellungen widerrufen.',
  logo: 'Logo von {app}',
  links: 'Über diese App',
  home: 'Website',
  policy: 'Datenschutzerklärung',
  terms: 'Nutzungsbedingungen',
  allow: 'Erlauben',
  deny: 'Ablehnen',
};
