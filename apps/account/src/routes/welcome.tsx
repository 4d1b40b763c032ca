import { useEffect } from 'react';
import { AccessGuard } from '../features/access-guard/access-guard.tsx';
import { WelcomeView } from '../features/welcome/welcome-view.tsx';
import { getConfig } from '../shared/config/env.ts';
import { initialPagePath } from '../shared/config/paths.ts';
import { isUnsubscribed } from '../shared/config/select-initial-page.ts';
import { navigate } from '../shared/navigation/history.ts';

function ToInitialPage() {
  useEffect(() => navigate(initialPagePath(getConfig().initialPage), { replace: true }), []);
  return null;
}

/**
 * The welcome page for organisations without a subscription, behind the access guard: signed in, in
 * an allowed mode; no product or scope check (an organisation without a subscription has neither).
 * A subscribed organisation's user is sent on to the initial page.
 */
export default function WelcomeRoute() {
  const config = getConfig();
  return (
    <AccessGuard requiredProducts={[]} requiredScopeGroups={[]}>
      {({ session, claims }) =>
        isUnsubscribed(claims) ? (
          <WelcomeView
            appName={config.appName}
            email={session.facts?.email}
            offerUrl={config.offerUrl}
            supportEmail={config.supportEmail}
          />
        ) : (
          <ToInitialPage />
        )
      }
    </AccessGuard>
  );
}
