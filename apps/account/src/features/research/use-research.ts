import { useEffect, useReducer, useState } from 'react';
import { allowedAuthModes, getConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { backgroundRefreshDelay, getValidToken } from '../../shared/oauth2/refresh.ts';
import { readToken } from '../../shared/oauth2/token-store.ts';
import type { OAuth2Token } from '../../shared/storage/registry.ts';
import type { AccessDecision } from '../../shared/access/check-access.ts';
import { checkAccess } from '../../shared/access/check-access.ts';
import { isAuthenticated } from '../../shared/session/is-authenticated.ts';
import { useSession } from '../../shared/session/use-session.ts';

/** The initial page's guard and data: who is signed in, the token's claims, token upkeep. */
export function useResearch() {
  const config = getConfig();
  const session = useSession();
  const [token, setToken] = useState<OAuth2Token | null | undefined>(undefined);
  const [, rerender] = useReducer((x: number) => x + 1, 0);

  // Refresh a token that is expired or about to expire (SPEC §4); failure sends the user to logout.
  useEffect(() => {
    const checking = readToken() ? getValidToken(config).then((valid) => valid ?? 'failed') : null;
    void Promise.resolve(checking).then((valid) => {
      if (valid === 'failed') navigate(paths.logout, { replace: true });
      else setToken(valid);
    });
  }, [config]);

  // Background refresh 60 s before expiry, only when more than 120 s are left.
  useEffect(() => {
    const delay = backgroundRefreshDelay(token ?? null, Date.now());
    if (delay === null) return;
    const timer = setTimeout(() => {
      void getValidToken(config, { force: true }).then((t) => {
        if (t) setToken(t);
        rerender();
      });
    }, delay);
    return () => clearTimeout(timer);
  }, [token, config]);

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

  return { session, claims, access, loading, config };
}
