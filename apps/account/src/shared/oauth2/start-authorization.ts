import { APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS, APPLICATION_LOGIN_LOCK_MS } from '../../constants.ts';
import type { AccountConfig } from '../config/env.ts';
import { redirectTo } from '../navigation/history.ts';
import { defaultLockContext, isLockHeld, tabId, tryTakeLock } from '../storage/cookie-lock.ts';
import type { Lock } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';
import { getOrCreateAuthorizationParams } from './authorization-params.ts';
import { buildAuthorizeUrl } from './authorize-url.ts';
import { codeChallengeS256 } from './pkce.ts';
import { beginSignInTrace } from '../tracing/trace-context.ts';

/** What starting an authorization reads of the configuration: the application and its client. */
export type AuthorizationConfig = Pick<AccountConfig, 'application' | 'oauth2Url' | 'clientId'>;

/** The authorize URL for this application, with fresh or still-valid PKCE params. */
async function authorizeUrlFor(config: AuthorizationConfig, origin: string): Promise<string> {
  const params = getOrCreateAuthorizationParams();
  return buildAuthorizeUrl({
    oauth2Url: config.oauth2Url,
    clientId: config.clientId,
    origin,
    state: params.state,
    codeChallenge: await codeChallengeS256(params.codeVerifier),
  });
}

/** This document, for the life of the page. */
const pageId = crypto.randomUUID();

/** The application-login lock names its holder: this tab, and the page in it. */
function lockOwner(): string {
  return `${tabId()}/${pageId}`;
}

/**
 * A lock taken by an earlier page of this tab: its authorize redirect was abandoned when the user
 * navigated again (opened the site at once after a logout, say), so nobody will release it.
 */
function leftByEarlierPage(lock: Lock | null): boolean {
  return lock !== null && lock.id.startsWith(`${tabId()}/`) && lock.id !== lockOwner();
}

/**
 * Whether the application-login lock keeps this page from authorizing now: held, by another tab or
 * by this very page. A lock left by an earlier page of this tab does not count.
 */
export function loginLockBlocks(lock: Lock | null, now: number): boolean {
  return isLockHeld(lock, now) && !leftByEarlierPage(lock);
}

/**
 * Takes the application-login lock (2 s), record which application starts the login,
 * build the authorize URI and redirect. Returns false when another run holds the lock.
 */
export async function startAuthorization(
  config: AuthorizationConfig,
  lockMs = APPLICATION_LOGIN_LOCK_MS,
): Promise<boolean> {
  if (leftByEarlierPage(read(registry.loginLock))) remove(registry.loginLock);
  if (!tryTakeLock(registry.loginLock, lockMs, { ...defaultLockContext, newId: lockOwner })) return false;
  write(registry.application, config.application);
  beginSignInTrace();
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

export type HeldAuthorization = { type: 'retry'; inMs: number } | { type: 'give-up' };

/**
 * A new authorization the application-login lock holds back (another tab's, or the 30 s lock the
 * SSO step took for a sign-in that never came back to release it): look again when the lock may be
 * free (at its expiry, at most every quarter of the 2 s lock, since its holder may release it early).
 * After waiting as long as the longest lock anyone takes (30 s), give up: the page says so and
 * offers the sign-in page, never an endless "Loading…".
 */
export function decideHeldAuthorization(input: {
  lock: Lock | null;
  now: number;
  waitingSince: number;
}): HeldAuthorization {
  if (input.now - input.waitingSince >= APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS) return { type: 'give-up' };
  const left = input.lock ? input.lock.expiresAt - input.now : 0;
  return { type: 'retry', inMs: Math.min(Math.max(left + 25, 25), APPLICATION_LOGIN_LOCK_MS / 4) };
}

/**
 * `startAuthorization` for a page whose token could not be renewed: waits while the lock is held,
 * as `decideHeldAuthorization` says. Resolves to false when it gave up.
 */
export async function startAuthorizationOrGiveUp(
  config: AccountConfig,
  clock: { now: () => number; sleep: (ms: number) => Promise<void> } = defaultLockContext,
): Promise<boolean> {
  const waitingSince = clock.now();
  for (;;) {
    if (await startAuthorization(config)) return true;
    const next = decideHeldAuthorization({ lock: read(registry.loginLock), now: clock.now(), waitingSince });
    if (next.type === 'give-up') return false;
    await clock.sleep(next.inMs);
  }
}
