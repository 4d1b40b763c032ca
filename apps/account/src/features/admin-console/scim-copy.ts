import { bindCatalogue } from '../../i18n/catalogue.ts';
import { scimEn } from './i18n/scim.en.ts';

/** The Provisioning section's texts in the active locale (`consoleCopy.scim`; source ./i18n/scim.en.ts). */
export const scimCopy = bindCatalogue('scim', scimEn);
