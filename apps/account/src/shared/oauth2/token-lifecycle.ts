import {
  BACKGROUND_REFRESH_BEFORE_EXPIRY_MS,
  BACKGROUND_REFRESH_MIN_REMAINING_MS,
  REAUTHORIZE_WINDOW_MS,
  TOKEN_EXPIRY_FACTOR_MS,
  TOKEN_REFRESH_ATTEMPTS,
  TOKEN_REFRESH_MARGIN_MS,
  TOKEN_REFRESH_RETRY_DELAY_MS,
} from '../../constants.ts';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../config/env.ts';
import type { LockContext } from '../storage/cookie-lock.ts';
import { acquireCookieLock, defaultLockContext } from '../storage/cookie-lock.ts';
import type { OAuth2Token } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';
import { tryDecodeJwtPayload } from './jwt.ts';
import { refreshTokens, type TokenResponse } from './token-endpoint.ts';

// The one owner of the app's OAuth2 token:
// - the medium: the `oauth2_token` cookie, or local storage while the isTeams flag is set (the team
//   client blocks third-party cookies);
// - the expiry, and the four renewal rules:
//   1. an expired token is refreshed, else a new authorization starts, else (an authorization was
//      already tried a moment ago) "Unable to obtain OAuth2 tokens, a full reauth may be needed";
//   2. a request answered 401 triggers one refresh and one retry;
//   3. a background refresh 60 s before expiry, scheduled only when more than 120 s are left;
//   4. a bearer token within 30 s of expiry gets 3 renewal attempts 1 s apart, then logout;
// - the cookie lock around every renewal (4 s, 40 tries, 70 ms apart, 30 ms confirm), shared by tabs.
// How a token is renewed depends on how it was obtained: see `registerTokenRenewal`.

export type TokenConfig = Pick<AccountConfig, 'oauth2Url' | 'clientId'>;

/** What the token module needs from its surroundings; tests pass a fake clock and a fake fetch. */
export interface TokenContext extends LockContext {
  fetchImpl: typeof fetch;
}

const defaultTokenContext: TokenContext = {
  ...defaultLockContext,
  fetchImpl: (...args) => fetch(...args),
};

// ---- medium -----------------------------------------------------------------------------------------

/** The stored token: accessToken, refreshToken (nullable), expiresAt = now + expires_in × 1000 (nullable). */
export function tokenFromResponse(response: TokenResponse, now: number): OAuth2Token {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token ?? null,
    expiresAt:
      typeof response.expires_in === 'number' ? now + response.expires_in * TOKEN_EXPIRY_FACTOR_MS : null,
  };
}

export function readToken(): OAuth2Token | null {
  return read(registry.oauth2Token);
}

export function storeToken(token: OAuth2Token): void {
  write(registry.oauth2Token, token);
}

export function removeToken(): void {
  remove(registry.oauth2Token);
}

/** Switches the medium (Teams: local storage), carrying a stored token over to the new one. */
export function useTeamsMedium(isTeams: boolean): void {
  const token = readToken();
  if (isTeams) write(registry.isTeams, true);
  else remove(registry.isTeams);
  if (!token) return;
  removeToken();
  storeToken(token);
}

// ---- renewal per authentication mode (the extension point) --------------------------------------------

/** How tokens of one authentication mode are renewed. Runs under the refresh lock. */
export interface TokenRenewal {
  /** Whether a renewal needs the stored refresh token (the OAuth2 refresh grant does; MSAL does not). */
  needsRefreshToken: boolean;
  /** A fresh token for `current`; throws or resolves null when none can be had. */
  renew(current: OAuth2Token, config: TokenConfig, context: TokenContext): Promise<OAuth2Token | null>;
}

/** Our authorization server's refresh grant; a rotated refresh token replaces the old one. */
const refreshGrant: TokenRenewal = {
  needsRefreshToken: true,
  async renew(current, config, context) {
    if (!current.refreshToken) return null;
    const response = await refreshTokens(
      { ...config, refreshToken: current.refreshToken },
      context.fetchImpl,
    );
    const token = tokenFromResponse(response, context.now());
    token.refreshToken ??= current.refreshToken;
    return token;
  },
};

const renewals = new Map<string, TokenRenewal>([['ory', refreshGrant]]);

/**
 * Registers how tokens of an authentication mode (`ext.user.authenticationMode` of the access token)
 * are renewed. The m365 sign-in registers 'm365': a silent MSAL token, then the backend login.
 */
export function registerTokenRenewal(mode: string, renewal: TokenRenewal): () => void {
  renewals.set(mode, renewal);
  return () => {
    if (renewals.get(mode) === renewal) renewals.delete(mode);
  };
}

function renewalFor(token: OAuth2Token): TokenRenewal {
  const mode = tryDecodeJwtPayload(token.accessToken)?.ext?.user?.authenticationMode ?? 'ory';
  return renewals.get(mode) ?? refreshGrant;
}

// ---- expiry ----------------------------------------------------------------------------------------

export type TokenAction = 'missing' | 'valid' | 'refresh' | 'reauthorize';

/** Refresh when expired or expiring within 30 s; without a way to renew, a new authorization is needed. */
export function decideTokenAction(token: OAuth2Token | null, now: number): TokenAction {
  if (!token) return 'missing';
  if (token.expiresAt === null || token.expiresAt - now > TOKEN_REFRESH_MARGIN_MS) return 'valid';
  return token.refreshToken || !renewalFor(token).needsRefreshToken ? 'refresh' : 'reauthorize';
}

/** Rule 3: background refresh 60 s before expiry, scheduled only when more than 120 s are left. */
export function backgroundRefreshDelay(token: OAuth2Token | null, now: number): number | null {
  if (!token || token.expiresAt === null) return null;
  const remaining = token.expiresAt - now;
  if (remaining <= BACKGROUND_REFRESH_MIN_REMAINING_MS) return null;
  return remaining - BACKGROUND_REFRESH_BEFORE_EXPIRY_MS;
}

// ---- renewal ---------------------------------------------------------------------------------------

/**
 * The stored token, renewed first when needed: up to 3 attempts 1 s apart, under the cookie lock so
 * that tabs do not renew at the same time (a tab that waited finds the other tab's new token). Null
 * when there is no usable token.
 */
export async function getValidToken(
  config: TokenConfig,
  options: { force?: boolean } = {},
  context: TokenContext = defaultTokenContext,
): Promise<OAuth2Token | null> {
  const initial = readToken();
  const renewable = initial && (initial.refreshToken || !renewalFor(initial).needsRefreshToken);
  const action = options.force && renewable ? 'refresh' : decideTokenAction(initial, context.now());
  if (action === 'valid') return initial;
  if (action !== 'refresh') return null;

  const release = await acquireCookieLock(registry.refreshLock, undefined, context);
  try {
    const current = readToken();
    // Another tab renewed while we waited for the lock.
    if (
      current &&
      current.accessToken !== initial?.accessToken &&
      decideTokenAction(current, context.now()) === 'valid'
    ) {
      return current;
    }
    if (!release || !current) return null;
    const renewal = renewalFor(current);
    if (renewal.needsRefreshToken && !current.refreshToken) return null;
    for (let attempt = 1; attempt <= TOKEN_REFRESH_ATTEMPTS; attempt++) {
      try {
        const token = await renewal.renew(current, config, context);
        if (token) {
          storeToken(token);
          return token;
        }
      } catch (error) {
        console.warn('Token refresh failed', error instanceof Error ? error.message : error);
      }
      if (attempt < TOKEN_REFRESH_ATTEMPTS) await context.sleep(TOKEN_REFRESH_RETRY_DELAY_MS);
    }
    return null;
  } finally {
    release?.();
  }
}

export type TokenOutcome =
  { type: 'token'; token: OAuth2Token } | { type: 'authorize' } | { type: 'failed'; message: string };

/**
 * Rule 1, for a page that needs a token: a valid or renewed token; else a new authorization (the
 * caller starts it); else, when an authorization was already started a moment ago and still gave no
 * usable token, the full-reauth message.
 */
export async function obtainToken(
  config: TokenConfig,
  context: TokenContext = defaultTokenContext,
): Promise<TokenOutcome> {
  const token = await getValidToken(config, {}, context);
  if (token) {
    remove(registry.reauthorizeStartedAt);
    return { type: 'token', token };
  }
  const started = read(registry.reauthorizeStartedAt);
  if (started !== null && context.now() - started < REAUTHORIZE_WINDOW_MS) {
    remove(registry.reauthorizeStartedAt);
    return { type: 'failed', message: copy.errors.fullReauth };
  }
  write(registry.reauthorizeStartedAt, context.now());
  return { type: 'authorize' };
}

/** Rule 3: renews the token 60 s before it expires (when more than 120 s are left); returns a cancel. */
export function scheduleBackgroundRefresh(
  config: TokenConfig,
  onRenewed: (token: OAuth2Token | null) => void,
  context: TokenContext & { setTimer?: (run: () => void, ms: number) => () => void } = defaultTokenContext,
): () => void {
  const delay = backgroundRefreshDelay(readToken(), context.now());
  if (delay === null) return () => {};
  const setTimer =
    context.setTimer ??
    ((run: () => void, ms: number) => {
      const id = setTimeout(run, ms);
      return () => clearTimeout(id);
    });
  return setTimer(() => void getValidToken(config, { force: true }, context).then(onRenewed), delay);
}

// ---- requests with the bearer token ------------------------------------------------------------------

export class NoTokenError extends Error {
  constructor() {
    super(copy.errors.fullReauth);
    this.name = 'NoTokenError';
  }
}

/** Where the user goes when a bearer token cannot be renewed (rule 4); the app sets the logout route. */
let onTokenLost: () => void = () => {};
export function setTokenLostHandler(handler: () => void): void {
  onTokenLost = handler;
}

/**
 * A request with the bearer token (rules 2 and 4): the token renewed first when within 30 s of expiry
 * (3 attempts, then logout), and a 401 answer renews once and retries once.
 */
export async function authorizedFetch(
  config: TokenConfig,
  url: string,
  init: RequestInit = {},
  context: TokenContext = defaultTokenContext,
): Promise<Response> {
  const send = (accessToken: string) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${accessToken}`);
    return context.fetchImpl(url, { ...init, headers });
  };
  const lost = (): never => {
    if (readToken()) {
      removeToken();
      onTokenLost();
    }
    throw new NoTokenError();
  };
  const token = (await getValidToken(config, {}, context)) ?? lost();
  const first = await send(token.accessToken);
  if (first.status !== 401) return first;
  const renewed = (await getValidToken(config, { force: true }, context)) ?? lost();
  return send(renewed.accessToken);
}

/**
 * `fetch` for the user service: with a stored token every call carries it (and follows rules 2 and
 * 4); before sign-in there is no token and the call goes out as it is.
 */
export function tokenFetch(
  config: () => TokenConfig,
  context: TokenContext = defaultTokenContext,
): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!readToken()) return context.fetchImpl(input, init);
    return authorizedFetch(config(), url, init, context);
  };
}
