import { renderToString } from 'react-dom/server';
import type { Locale } from '@acme/i18n';
import { german } from '../app/german.ts';
import { Providers } from '../app/providers.tsx';
import { loadLocale, registerLocale } from '../i18n/locale.ts';
import { EmailStep } from '../features/login/steps/email-step.tsx';
import { ACCESS_EMAIL_SLOT } from './slots.ts';

// Build time only (vite.config.ts): the Email step as the login route's page carries it, so that
// the Welcome card is painted with the first response, before the app has started. The app's first
// render of the route takes this markup over (hydration, main.tsx): the same component, the same
// texts, rendered with renderToString so that adjacent texts keep the separators hydration needs.
// Its field takes no typing until the app has started. One render per locale, with the catalogues
// the app loads for it (main.tsx), so a German browser's first render matches the German card.

const noop = () => undefined;

registerLocale('de', () => Promise.resolve(german));

/**
 * The root element's content for the login route in a locale: the Email step as the app first
 * renders it in a browser with passkeys (the passkey button offered; autofill is decided later, an
 * attribute only).
 */
export async function renderLoginRoot(locale: Locale): Promise<string> {
  await loadLocale(locale);
  return renderToString(
    <Providers>
      <EmailStep
        accessEmail={ACCESS_EMAIL_SLOT}
        inert
        onSubmit={noop}
        passkey={{ offer: { button: true, autofill: false }, signIn: noop, formErrors: [] }}
      />
    </Providers>,
  );
}
