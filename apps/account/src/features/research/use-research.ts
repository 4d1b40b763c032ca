import { useEffect } from 'react';
import { allowedAuthModes, getConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { useToken } from '../../shared/oauth2/use-token.ts';
import type { AccessDecision } from '../../shared/access/check-access.ts';
import { checkAccess } from '../../shared/access/check-access.ts';
import { isAuthenticated } from '../../shared/session/is-authenticated.ts';
import { useSession } from '../../shared/session/use-session.ts';

/** The initial page's guard and data: who is signed in, the token's claims, token upkeep. */
export function useResearch() {
  const config = getConfig();
  const session = useSession();
  const { token, error: tokenError } = useToken(config);
  const claims = tryDecodeJwtPayload(token?.accessToken);
  const loading = session.state === 'loading' || token === undefined;
  const authenticated = isAuthenticated({
    tokenAuthMode: claims?.ext?.user?.authenticationMode ?? null,
    session: session.facts,
    disableGitStep: config.disableGitStep,
    now: session.checkedAt,
  });
  const access: AccessDecision | null = loading
    ? null
    : checkAccess({ authenticated, claims, allowedModes: allowedAuthModes(config) });

  useEffect(() => {
    if (access?.type === 'login') navigate(paths.login, { replace: true });
  }, [access?.type]);

  return { session, claims, access, loading, config, tokenError };
}
