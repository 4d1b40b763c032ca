import { useEffect, useState } from 'react';
import { allowedAuthModes, getConfig, requiredProducts } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { readToken } from '../../shared/oauth2/token-lifecycle.ts';
import { useToken } from '../../shared/oauth2/use-token.ts';
import { isAuthenticated } from '../../shared/session/is-authenticated.ts';
import { useSession } from '../../shared/session/use-session.ts';
import type { AccessDecision, AccessInput } from './decide-access.ts';
import { decideAccess } from './decide-access.ts';

/** Per-page options; required products and scope groups default to the application's configuration. */
export type GuardOptions = Pick<
  AccessInput,
  'logoutGuests' | 'hasModePage' | 'welcomeUnsubscribed' | 'requiredProducts' | 'requiredScopeGroups'
>;

/**
 * A protected page's guard and data: loads the session and the token (useToken renews one that is
 * expired or about to expire and keeps it fresh; `tokenError` when even a new authorization failed),
 * asks decideAccess with the application's configuration, and runs the navigations it decides.
 */
export function useAccessGuard(options: GuardOptions = {}) {
  const config = getConfig();
  // Without a stored token the answer is login (or logout) whatever the session: the page does not
  // ask for it, and the login page that follows asks once.
  const [hadToken] = useState(() => readToken() !== null);
  const session = useSession({ load: hadToken });
  const { token, error: tokenError } = useToken(config);
  const claims = tryDecodeJwtPayload(token?.accessToken);
  const loading = token === undefined || (token !== null && session.state === 'loading');
  const authenticated = isAuthenticated({
    tokenAuthMode: claims?.ext?.user?.authenticationMode ?? null,
    session: session.facts,
    disableGitStep: config.disableGitStep,
    now: session.checkedAt,
  });
  // A token that could not be obtained shows its message (with the way back to sign-in) and
  // navigates nowhere by itself.
  const access: AccessDecision | null =
    loading || tokenError
      ? null
      : decideAccess({
          authenticated,
          claims,
          allowedModes: allowedAuthModes(config),
          requiredProducts: requiredProducts(config),
          requiredScopeGroups: config.requiredScopeGroups,
          ...options,
        });

  useEffect(() => {
    if (access?.type === 'login') navigate(paths.login, { replace: true });
    else if (access?.type === 'logout') navigate(paths.logout, { replace: true });
    else if (access?.type === 'welcome') navigate(paths.welcome, { replace: true });
  }, [access?.type]);

  return { session, claims, access, loading, config, tokenError };
}
