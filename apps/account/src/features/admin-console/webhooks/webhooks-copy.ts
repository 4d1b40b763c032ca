import { bindCatalogue } from '../../../i18n/catalogue.ts';
import { webhooksEn } from '../i18n/webhooks.en.ts';

/** The Webhooks section's texts in the active locale (`consoleCopy.webhooks`; source ../i18n/webhooks.en.ts). */
export const webhooksCopy = bindCatalogue('webhooks', webhooksEn);
