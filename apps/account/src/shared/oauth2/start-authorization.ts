import { APPLICATION_LOGIN_LOCK_MS } from '../../constants.ts';
import type { AccountConfig } from '../config/env.ts';
import { redirectTo } from '../navigation/history.ts';
import { tryTakeLock } from '../storage/cookie-lock.ts';
import { registry } from '../storage/registry.ts';
import { write } from '../storage/storage.ts';
import { getOrCreateAuthorizationParams } from './authorization-params.ts';
import { buildAuthorizeUrl } from './authorize-url.ts';
import { codeChallengeS256 } from './pkce.ts';

/** The authorize URL for this application, with fresh or still-valid PKCE params. */
export async function authorizeUrlFor(config: AccountConfig, origin: string): Promise<string> {
  const params = getOrCreateAuthorizationParams();
  return buildAuthorizeUrl({
    oauth2Url: config.oauth2Url,
    clientId: config.clientId,
    origin,
    state: params.state,
    codeChallenge: await codeChallengeS256(params.codeVerifier),
  });
}

/**
 * SPEC §4: take the application-login lock (2 s), record which application starts the login,
 * build the authorize URI and redirect. Returns false when another run holds the lock.
 */
export async function startAuthorization(
  config: AccountConfig,
  lockMs = APPLICATION_LOGIN_LOCK_MS,
): Promise<boolean> {
  if (!tryTakeLock(registry.loginLock, lockMs)) return false;
  write(registry.application, config.application);
  redirectTo(await authorizeUrlFor(config, window.location.origin));
  return true;
}

/**
 * `startAuthorization`, waiting for the application-login lock when it is held: a page that must
 * obtain a token (the callback after a 2FA set-up, say) may arrive while the lock taken before the
 * previous navigation is still running. Tries again every quarter of the lock's lifetime.
 */
export async function startAuthorizationWhenFree(
  config: AccountConfig,
  lockMs = APPLICATION_LOGIN_LOCK_MS,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> {
  while (!(await startAuthorization(config, lockMs))) await sleep(lockMs / 4);
}
