import { useState } from 'react';
import type { AccountConfig } from '../../shared/config/env.ts';
import { m365SignInAvailable } from '../../shared/config/env.ts';
import { initialPagePath } from '../../shared/config/paths.ts';
import { useLocation } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { loginLockBlocks, type AuthorizationConfig } from '../../shared/oauth2/start-authorization.ts';
import { readToken } from '../../shared/oauth2/token-lifecycle.ts';
import { isAuthenticated, onboardingDue } from '../../shared/session/is-authenticated.ts';
import type { SessionResult } from '../../shared/session/use-session.ts';
import type { EmailResult } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { useWatchedValue } from '../../shared/storage/watch.ts';
import type { LoginQuery } from './decide-login-effect.ts';
import { decideLoginEffect } from './decide-login-effect.ts';
import { useLoginEffects } from './use-login-effects.ts';

const readAccessToken = () => readToken()?.accessToken ?? null;

/** What the login command reads of the configuration. */
type LoginCommandConfig = AuthorizationConfig &
  Pick<AccountConfig, 'urlMap' | 'disableGitStep' | 'initialPage' | 'm365' | 'allowedAuthModes'>;

export interface LoginCommandInput {
  config: LoginCommandConfig;
  search: LoginQuery & { login_challenge?: string; flow?: string };
  session: Pick<SessionResult, 'state' | 'facts' | 'reload'>;
  emailResult: EmailResult | null;
  now: number;
  refresh: () => void;
}

/**
 * Gathers the login effect's inputs (cookies, token, session, lock), decides the command
 * (`decideLoginEffect`) and runs it (`useLoginEffects`).
 */
export function useLoginCommand({ config, search, session, emailResult, now, refresh }: LoginCommandInput) {
  const location = useLocation();
  const [sessionReloaded, setSessionReloaded] = useState(false);
  // The cookie hook (5 s): a sign-in finished in another tab re-decides this one (initial page).
  useWatchedValue(readAccessToken);
  const token = readToken();
  const storedChallenge = read(registry.loginChallenge);
  const claims = tryDecodeJwtPayload(token?.accessToken);
  const authInput = {
    tokenAuthMode: claims?.ext?.user?.authenticationMode ?? null,
    session: session.facts,
    disableGitStep: config.disableGitStep,
    now,
  };
  const m365SignIn = m365SignInAvailable(config);
  const lock = read(registry.loginLock);
  const lockBlocks = loginLockBlocks(lock, now);

  const command = decideLoginEffect({
    application: config.application,
    applicationCookie: read(registry.application),
    urlMap: config.urlMap,
    location,
    queryChallenge: search.login_challenge ?? null,
    query: search,
    storedChallenge,
    sessionState: session.state,
    authenticated: isAuthenticated(authInput),
    onboardingDue: onboardingDue(authInput),
    hasToken: token !== null,
    emailResult,
    m365SignIn,
    resetPasswordInProgress: read(registry.resetPasswordState)?.inProgress === true,
    sessionReloaded,
    loginLockHeld: lockBlocks,
    initialPagePath: initialPagePath(config.initialPage),
    cloudSignOutPending: read(registry.cloudSignOutPending) === true,
    flowInQuery: Boolean(search.flow),
  });
  useLoginEffects(command, {
    config,
    sessionState: session.state,
    lockExpiresAt: lockBlocks && lock ? lock.expiresAt : null,
    now,
    refresh,
    reloadSession: () => void session.reload(),
    markSessionReloaded: () => setSessionReloaded(true),
  });
  return { command, hasToken: token !== null, storedChallenge, m365SignIn };
}
