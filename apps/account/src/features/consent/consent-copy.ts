import { bindCatalogue } from '../../i18n/catalogue.ts';
import { consentEn } from './i18n/consent.en.ts';

/** The consent screen's texts in the active locale (English source: ./i18n/consent.en.ts). */
export const consentCopy = bindCatalogue('consent', consentEn);
