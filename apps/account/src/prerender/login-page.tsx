import { renderToStaticMarkup } from 'react-dom/server';
import { Providers } from '../app/providers.tsx';
import { EmailStep } from '../features/login/steps/email-step.tsx';
import { ACCESS_EMAIL_SLOT } from './slots.ts';

// Build time only (vite.config.ts): the Email step as the login route's page carries it, so that
// the Welcome card is painted with the first response, before the app has started. The app's first
// render of the route replaces it with the same markup (the same component, the same texts). Its
// field takes no typing until then: what was typed would be lost when the app replaces it.

const noop = () => undefined;

/**
 * The root element's content for the login route: the Email step as the app first renders it in a
 * browser with passkeys (the passkey button offered; autofill is decided later, an attribute only).
 */
export function renderLoginRoot(): string {
  return renderToStaticMarkup(
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
