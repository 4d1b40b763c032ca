import { bindCatalogue } from '../../i18n/catalogue.ts';
import { ssoEn } from './i18n/sso.en.ts';

/** The Single sign-on section's texts in the active locale (`consoleCopy.sso`; source ./i18n/sso.en.ts). */
export const ssoCopy = bindCatalogue('sso', ssoEn);
