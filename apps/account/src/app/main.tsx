import '../shared/ui/styles.css';
import { createRoot } from 'react-dom/client';
import { getConfig } from '../shared/config/env.ts';
import { paths } from '../shared/config/paths.ts';
import { applyLayoutConstants } from '../shared/config/versions.ts';
import { redirectTo } from '../shared/navigation/history.ts';
import { adoptServerAuthorizationParams } from '../shared/oauth2/authorization-params.ts';
import { registerTokenRenewal, setTokenLostHandler } from '../shared/oauth2/token-lifecycle.ts';
import { configureStorage } from '../shared/storage/storage.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Providers } from './providers.tsx';
import { Router } from './router.tsx';
import { enableTraceContext } from '../shared/tracing/trace-context.ts';

const root = createRoot(document.getElementById('root')!);
applyLayoutConstants(document.documentElement);

try {
  const config = getConfig();
  configureStorage({ cookieDomain: config.cookieDomain });
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
  root.render(
    <Providers>
      <Router />
    </Providers>,
  );
} catch (error) {
  console.error(error);
  root.render(<ErrorView message={error instanceof Error ? error.message : String(error)} mode="retry" />);
}
