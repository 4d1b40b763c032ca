import { bindCatalogue, withSections } from '../../i18n/catalogue.ts';
import { consoleEn } from './i18n/console.en.ts';
import { scimCopy } from './scim-copy.ts';
import { ssoCopy } from './sso-copy.ts';
import { webhooksCopy } from './webhooks/webhooks-copy.ts';

/** The admin console's texts in the active locale (English source: ./i18n/console.en.ts). */
export const consoleCopy = withSections(bindCatalogue('console', consoleEn), {
  sso: ssoCopy,
  scim: scimCopy,
  webhooks: webhooksCopy,
});
