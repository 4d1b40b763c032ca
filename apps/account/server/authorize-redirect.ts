import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  APPLICATION_LOGIN_LOCK_MS,
  AUTHORIZATION_PARAMS_TTL_MS,
  CODE_VERIFIER_BYTES,
  LOGIN_CHALLENGE_TTL_MS,
} from '../src/constants.ts';
import type { AccountConfig } from '../src/shared/config/env.ts';
import { paths } from '../src/shared/config/paths.ts';
import { buildAuthorizeUrl } from '../src/shared/oauth2/authorize-url.ts';
import { registry, type AuthorizationParams, type StorageEntry } from '../src/shared/storage/registry.ts';
import { requestCookies } from './request-cookies.ts';

// The login route's first request, answered here: a browser that opens /account/login with nothing
// pending is sent straight to the authorization endpoint (authorization code with PKCE S256), so
// the app boots once, on the page the authorization server sends back with the login challenge,
// instead of booting, checking the session and navigating away to boot again.
//
// Anything the app must decide itself gets the app: a query of any kind (a challenge, a flow, an
// authorization answer, a logout's return), or one of the cookies below (a token, a pending challenge,
// a held lock, an email already given, a password reset or a Microsoft sign-out in progress, the
// tracing of a sign-in). The app then starts the authorization as before.
//
// The PKCE verifier and state are made here and handed to the app in a host-only cookie it reads once
// at start-up and moves to where it keeps them (local storage, as when it makes them itself), then
// deletes: the redirect's answer is the only place they travel, and only to this origin.

const DEFERS_TO_APP: readonly StorageEntry<unknown>[] = [
  registry.oauth2Token,
  registry.loginChallenge,
  registry.loginLock,
  registry.emailResult,
  registry.resetPasswordState,
  registry.cloudSignOutPending,
  registry.authorizationHandoff,
] as StorageEntry<unknown>[];

/** Whether this request for the login route is answered with the authorization redirect. */
export function redirectsToAuthorization(config: AccountConfig, req: IncomingMessage): boolean {
  if (req.method !== 'GET') return false;
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== paths.login || url.search !== '') return false;
  // Tracing on: the sign-in's trace id is kept in the tab (session storage), which only the app can write.
  if (config.tracing) return false;
  const names = requestCookies(req);
  return !DEFERS_TO_APP.some((entry) => names.has(entry.key));
}

function base64Url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function cookie(
  entry: StorageEntry<unknown>,
  value: unknown,
  config: AccountConfig,
  secure: boolean,
  ttlMs: number,
): string {
  let out = `${entry.key}=${encodeURIComponent(JSON.stringify(value))}; Path=/; SameSite=Lax; Max-Age=${Math.ceil(ttlMs / 1000)}`;
  if (config.cookieDomain && !entry.hostOnly) out += `; Domain=${config.cookieDomain}`;
  if (secure) out += '; Secure';
  return out;
}

export interface AuthorizationRedirect {
  location: string;
  setCookies: string[];
}

/**
 * The authorization endpoint's URL for this application with fresh PKCE parameters, and the cookies
 * the app's own start of an authorization writes: which application started the login, the
 * application-login lock (so that another tab does not start a second authorization over this one's
 * parameters) and the hand-off of the verifier and state.
 */
export function authorizationRedirect(config: AccountConfig, now = Date.now()): AuthorizationRedirect {
  const origin = new URL(config.urlMap[config.application]).origin;
  const secure = origin.startsWith('https:');
  const params: AuthorizationParams = {
    codeVerifier: base64Url(randomBytes(CODE_VERIFIER_BYTES)),
    state: base64Url(randomBytes(16)),
    expiration: now + AUTHORIZATION_PARAMS_TTL_MS,
  };
  const location = buildAuthorizeUrl({
    oauth2Url: config.oauth2Url,
    clientId: config.clientId,
    origin,
    state: params.state,
    codeChallenge: base64Url(createHash('sha256').update(params.codeVerifier, 'ascii').digest()),
  });
  const lock = { id: `server/${base64Url(randomBytes(9))}`, expiresAt: now + APPLICATION_LOGIN_LOCK_MS };
  return {
    location,
    setCookies: [
      cookie(registry.application, config.application, config, secure, LOGIN_CHALLENGE_TTL_MS),
      cookie(registry.loginLock, lock, config, secure, APPLICATION_LOGIN_LOCK_MS),
      cookie(registry.authorizationHandoff, params, config, secure, LOGIN_CHALLENGE_TTL_MS),
    ],
  };
}
