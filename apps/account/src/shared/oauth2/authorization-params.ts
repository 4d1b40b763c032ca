import { AUTHORIZATION_PARAMS_TTL_MS } from '../../constants.ts';
import type { AuthorizationParams } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';
import { createCodeVerifier, createState } from './pkce.ts';

/** Stored params are reused while valid and regenerated when absent or expired. */
function needsNewParams(params: AuthorizationParams | null, now: number): boolean {
  return params === null || params.expiration <= now;
}

export function getOrCreateAuthorizationParams(now = Date.now()): AuthorizationParams {
  const stored = read(registry.authorizationParams);
  if (stored && !needsNewParams(stored, now)) return stored;
  const fresh: AuthorizationParams = {
    codeVerifier: createCodeVerifier(),
    state: createState(),
    expiration: now + AUTHORIZATION_PARAMS_TTL_MS,
  };
  write(registry.authorizationParams, fresh);
  return fresh;
}

export function readAuthorizationParams(): AuthorizationParams | null {
  return read(registry.authorizationParams);
}

export function clearAuthorizationParams(): void {
  remove(registry.authorizationParams);
  remove(registry.supersededAuthorizationParams);
}

/**
 * The parameters an authorization answer with `state` was started with: the current ones, or the
 * app's own that a server hand-off replaced while still valid (their authorization may be the one
 * that came back). Any other state gets the current ones, which the callback then refuses.
 */
export function selectAuthorizationParams(input: {
  current: AuthorizationParams | null;
  superseded: AuthorizationParams | null;
  state: string | undefined;
  now: number;
}): AuthorizationParams | null {
  const { current, superseded, state } = input;
  if (current?.state === state) return current;
  if (superseded?.state === state && !needsNewParams(superseded, input.now)) return superseded;
  return current;
}

/** `selectAuthorizationParams` over what this browser keeps. */
export function authorizationParamsFor(
  state: string | undefined,
  now = Date.now(),
): AuthorizationParams | null {
  return selectAuthorizationParams({
    current: readAuthorizationParams(),
    superseded: read(registry.supersededAuthorizationParams),
    state,
    now,
  });
}

/**
 * The PKCE parameters of an authorization the account app server started, taken once: moved to
 * where the app keeps its own (the code exchange reads them there) and the hand-off cookie deleted.
 * Valid parameters of the app's own that they replace are kept aside: the server's answer may have
 * come for a navigation the browser then abandoned for the app's own authorization, whose answer
 * is the one that comes back. Returns whether there was a hand-off.
 */
export function adoptServerAuthorizationParams(now = Date.now()): boolean {
  const handed = read(registry.authorizationHandoff);
  if (handed === null) return false;
  remove(registry.authorizationHandoff);
  const own = readAuthorizationParams();
  if (own && own.state !== handed.state && !needsNewParams(own, now)) {
    write(registry.supersededAuthorizationParams, own);
  }
  write(registry.authorizationParams, handed);
  return true;
}
