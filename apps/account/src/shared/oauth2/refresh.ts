import {
  BACKGROUND_REFRESH_BEFORE_EXPIRY_MS,
  BACKGROUND_REFRESH_MIN_REMAINING_MS,
  TOKEN_REFRESH_ATTEMPTS,
  TOKEN_REFRESH_MARGIN_MS,
  TOKEN_REFRESH_RETRY_DELAY_MS,
} from '../../constants.ts';
import type { OAuth2Token } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import type { LockDeps } from '../storage/cookie-lock.ts';
import { acquireCookieLock, defaultLockDeps } from '../storage/cookie-lock.ts';
import { refreshTokens } from './token-endpoint.ts';
import { readToken, storeToken, tokenFromResponse } from './token-store.ts';

// Token refresh.

export type TokenAction = 'missing' | 'valid' | 'refresh' | 'reauthorize';

/** Refresh when expired or expiring within 30 s; without a refresh token a new authorization is needed. */
export function decideTokenAction(token: OAuth2Token | null, now: number): TokenAction {
  if (!token) return 'missing';
  if (token.expiresAt === null || token.expiresAt - now > TOKEN_REFRESH_MARGIN_MS) return 'valid';
  return token.refreshToken ? 'refresh' : 'reauthorize';
}

/** Background refresh 60 s before expiry, scheduled only when more than 120 s are left. */
export function backgroundRefreshDelay(token: OAuth2Token | null, now: number): number | null {
  if (!token || token.expiresAt === null) return null;
  const remaining = token.expiresAt - now;
  if (remaining <= BACKGROUND_REFRESH_MIN_REMAINING_MS) return null;
  return remaining - BACKGROUND_REFRESH_BEFORE_EXPIRY_MS;
}

export interface RefreshDeps extends LockDeps {
  fetchImpl: typeof fetch;
}

const defaultRefreshDeps: RefreshDeps = { ...defaultLockDeps, fetchImpl: (...args) => fetch(...args) };

/**
 * The stored token, refreshed first when needed: up to 3 attempts 1 s apart, under the cookie lock
 * so that tabs do not refresh concurrently. Null when there is no usable token (the caller re-authorizes
 * or logs out).
 */
export async function getValidToken(
  config: { oauth2Url: string; clientId: string },
  options: { force?: boolean } = {},
  deps: RefreshDeps = defaultRefreshDeps,
): Promise<OAuth2Token | null> {
  const initial = readToken();
  const action = options.force && initial?.refreshToken ? 'refresh' : decideTokenAction(initial, deps.now());
  if (action === 'valid') return initial;
  if (action !== 'refresh') return null;

  const release = await acquireCookieLock(registry.refreshLock, undefined, deps);
  try {
    const current = readToken();
    // Another tab refreshed while we waited for the lock.
    if (
      current &&
      current.accessToken !== initial?.accessToken &&
      decideTokenAction(current, deps.now()) === 'valid'
    ) {
      return current;
    }
    if (!release) return null;
    const refreshToken = current?.refreshToken;
    if (!refreshToken) return null;
    for (let attempt = 1; attempt <= TOKEN_REFRESH_ATTEMPTS; attempt++) {
      try {
        const response = await refreshTokens({ ...config, refreshToken }, deps.fetchImpl);
        const token = tokenFromResponse(response, deps.now());
        if (!token.refreshToken) token.refreshToken = refreshToken;
        storeToken(token);
        return token;
      } catch (error) {
        console.warn('Token refresh failed', error instanceof Error ? error.message : error);
        if (attempt < TOKEN_REFRESH_ATTEMPTS) await deps.sleep(TOKEN_REFRESH_RETRY_DELAY_MS);
      }
    }
    return null;
  } finally {
    release?.();
  }
}
