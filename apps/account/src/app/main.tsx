import '../shared/ui/styles.css';
import type { ReactNode } from 'react';
import { startTransition } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { getConfig } from '../shared/config/env.ts';
import { paths } from '../shared/config/paths.ts';
import { applyLayoutConstants } from '../shared/config/versions.ts';
import { redirectTo } from '../shared/navigation/history.ts';
import { adoptServerAuthorizationParams } from '../shared/oauth2/authorization-params.ts';
import { registerTokenRenewal, setTokenLostHandler } from '../shared/oauth2/token-lifecycle.ts';
import { registry } from '../shared/storage/registry.ts';
import { configureStorage, write } from '../shared/storage/storage.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Providers } from './providers.tsx';
import { Router } from './router.tsx';
import { enableTraceContext } from '../shared/tracing/trace-context.ts';
import { activateLocale, registerLocale } from '../i18n/locale.ts';
import { startLocale } from '../shared/session/person-locale.ts';
import { LocaleRoot } from '../i18n/locale-root.tsx';
import { documentParsed, yieldToBrowser } from '../shared/scheduling/yield-to-browser.ts';

const container = document.getElementById('root')!;
let root: Root | null = null;
applyLayoutConstants(document.documentElement);

/**
 * The login route's page arrives with the Email step already in the root element (the card is the
 * page's largest paint). The app takes that markup over (hydration) instead of replacing it, so the
 * first paint stays the largest one and no node is made twice; in a transition, so React does the
 * work in short slices and the page stays responsive while it does. Where the app's first screen is
 * not that Email step (another language, no passkeys, an error), React renders it anew, as it does
 * on every other page: an expected outcome, not an error to report.
 */
function mount(app: ReactNode): void {
  if (!container.hasChildNodes()) {
    root = createRoot(container);
    root.render(app);
    return;
  }
  startTransition(() => {
    root = hydrateRoot(container, app, { onRecoverableError: () => undefined });
  });
}

/**
 * The start, in short tasks: the page is on screen already, and on a slow phone each phase below is
 * tens of milliseconds (the first reads of the cookie store and local storage wait on the browser),
 * which as one task would hold up a tap or a keystroke. Module evaluation ends before the first.
 */
async function start() {
  await yieldToBrowser();
  await documentParsed();
  const config = getConfig();
  configureStorage({ cookieDomain: config.cookieDomain });
  // This tab has the app's code now: its next login page starts it at once (server/deferred-start.ts).
  try {
    write(registry.startedEntry, new URL(import.meta.url).pathname);
  } catch {
    // No session storage: the next login page waits for its first paint, as on a first visit.
  }
  // The account app server may have started the authorization (the login route's first request).
  adoptServerAuthorizationParams();
  enableTraceContext(config.tracing === true);
  // A bearer token that cannot be renewed ends the sign-in: logout.
  setTokenLostHandler(() => redirectTo(paths.logout));
  // An m365 token is renewed with a silent Microsoft token and the backend login (loaded on demand).
  registerTokenRenewal('m365', {
    needsRefreshToken: false,
    renew: () => import('../features/m365/renew-m365-token.ts').then((m) => m.renewM365TokenSilently()),
  });
  // The browser's language until the session says the person's own (LocaleRoot); a German page
  // waits for its catalogue, so it never paints in English first.
  registerLocale('de', () => import('./german.ts').then((m) => m.german));
  await yieldToBrowser();
  await activateLocale(startLocale());
  await yieldToBrowser();
  mount(
    <Providers>
      <LocaleRoot>
        <Router />
      </LocaleRoot>
    </Providers>,
  );
}

start().catch((error: unknown) => {
  console.error(error);
  root ??= createRoot(container);
  root.render(<ErrorView message={error instanceof Error ? error.message : String(error)} mode="retry" />);
});
