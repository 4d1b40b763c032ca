import { consoleDe } from '../features/admin-console/i18n/console.de.ts';
import { scimDe } from '../features/admin-console/i18n/scim.de.ts';
import { ssoDe } from '../features/admin-console/i18n/sso.de.ts';
import { webhooksDe } from '../features/admin-console/i18n/webhooks.de.ts';
import { consentDe } from '../features/consent/i18n/consent.de.ts';
import { shellDe } from '../shared/shell/i18n/shell.de.ts';
import { appDe } from '../i18n/app.de.ts';

/** Every German catalogue by area: one lazy chunk, loaded only when a person's locale is German. */
export const german: Readonly<Record<string, object>> = {
  app: appDe,
  shell: shellDe,
  consent: consentDe,
  console: consoleDe,
  sso: ssoDe,
  scim: scimDe,
  webhooks: webhooksDe,
};
