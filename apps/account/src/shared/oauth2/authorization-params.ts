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
}

/**
 * The PKCE parameters of an authorization the account app server started, taken once: moved to
 * where the app keeps its own (the code exchange reads them there) and the hand-off cookie deleted.
 * Returns whether there was one.
 */
export function adoptServerAuthorizationParams(): boolean {
  const handed = read(registry.authorizationHandoff);
  if (handed === null) return false;
  remove(registry.authorizationHandoff);
  write(registry.authorizationParams, handed);
  return true;
}
