import { bindCatalogue } from '../../i18n/catalogue.ts';
import { shellEn } from './i18n/shell.en.ts';

/** The signed-in shell's texts in the active locale (English source: ./i18n/shell.en.ts). */
export const shellCopy = bindCatalogue('shell', shellEn);
