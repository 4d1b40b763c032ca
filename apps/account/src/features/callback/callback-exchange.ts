import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { clearAuthorizationParams } from '../../shared/oauth2/authorization-params.ts';
import { redirectUri } from '../../shared/oauth2/authorize-url.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { exchangeCode } from '../../shared/oauth2/token-endpoint.ts';
import { readToken, storeToken, tokenFromResponse } from '../../shared/oauth2/token-lifecycle.ts';
import { acquireCookieLockOrOutwait } from '../../shared/storage/cookie-lock.ts';
import type { StorageEntry } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { remove } from '../../shared/storage/storage.ts';
import { endSignInTrace } from '../../shared/tracing/trace-context.ts';

// The callback's code exchange and its clean-up, outside React.

/**
 * After a successful exchange: clear the email result, SSO lock and challenge, and the
 * application-login lock (the SSO step raised it to 30 s; the sign-in it guarded is done, and a
 * refresh refused a moment later must be able to start a new authorization at once).
 */
export function clearAfterExchange(): void {
  const entries: StorageEntry<unknown>[] = [
    registry.emailResult,
    registry.loginLock,
    registry.ssoRedirectLock,
    registry.ssoRedirects,
    registry.ssoTries,
    registry.loginChallenge,
    registry.application,
    registry.missingSessionRetried,
    registry.logoutState,
  ] as StorageEntry<unknown>[];
  for (const entry of entries) remove(entry);
  clearAuthorizationParams();
}

/** Redeems `code` with the verifier of the authorization it answers (`authorizationParamsFor`). */
export async function exchangeUnderLock(code: string, codeVerifier: string): Promise<void> {
  const config = getConfig();
  const release = await acquireCookieLockOrOutwait(registry.refreshLock);
  if (!release) throw new Error(copy.errors.fullReauth);
  try {
    const response = await exchangeCode({
      oauth2Url: config.oauth2Url,
      clientId: config.clientId,
      code,
      redirectUri: redirectUri(window.location.origin),
      codeVerifier,
    });
    storeToken(tokenFromResponse(response, Date.now()));
    endSignInTrace();
  } finally {
    release();
  }
}

export function tokenAuthMode(): string | null {
  return tryDecodeJwtPayload(readToken()?.accessToken)?.ext?.user?.authenticationMode ?? null;
}
