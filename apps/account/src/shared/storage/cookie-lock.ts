import { REFRESH_LOCK } from '../../constants.ts';
import type { Lock, StorageEntry } from './registry.ts';
import { registry } from './registry.ts';
import { read, remove, write } from './storage.ts';

// A lock held in a cookie, shared by every tab of the site: write our id, wait, read it back.
// The refresh lock: 4 s expiry, up to 40 tries, 70 ms wait, 30 ms confirm delay.

export interface LockContext {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  newId: () => string;
}

export const defaultLockContext: LockContext = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  newId: () => crypto.randomUUID(),
};

export interface LockOptions {
  expiryMs: number;
  maxTries: number;
  waitMs: number;
  confirmDelayMs: number;
}

export function isLockHeld(lock: Lock | null, now: number): boolean {
  return lock !== null && lock.expiresAt > now;
}

/** This tab's id: kept in session storage, so it is the same across the tab's own navigations. */
export function tabId(): string {
  const known = read(registry.tabId);
  if (known) return known;
  const id = crypto.randomUUID();
  try {
    write(registry.tabId, id);
  } catch {
    // No session storage: every page is a tab of its own.
  }
  return id;
}

/** Resolves to a release function, or null when the lock could not be taken within maxTries. */
export async function acquireCookieLock(
  entry: StorageEntry<Lock>,
  options: LockOptions = REFRESH_LOCK,
  context: LockContext = defaultLockContext,
): Promise<(() => void) | null> {
  const id = context.newId();
  for (let attempt = 0; attempt < options.maxTries; attempt++) {
    if (!isLockHeld(read(entry), context.now())) {
      write(entry, { id, expiresAt: context.now() + options.expiryMs }, { ttlMs: options.expiryMs });
      await context.sleep(options.confirmDelayMs);
      if (read(entry)?.id === id) {
        return () => {
          if (read(entry)?.id === id) remove(entry);
        };
      }
    }
    await context.sleep(options.waitMs);
  }
  return null;
}

/**
 * How long a taker that cannot try again later waits for a lock still held after its tries: until the
 * expiry the lock names, never longer than a lock lives. Null when the lock is free.
 */
export function outwaitDelay(lock: Lock | null, now: number, expiryMs: number): number | null {
  if (lock === null || !isLockHeld(lock, now)) return null;
  return Math.min(lock.expiresAt - now, expiryMs);
}

/**
 * `acquireCookieLock` for a taker that cannot come back later (the callback: its code is single-use
 * and the person has just signed in). The tries end (40 × 70 ms, about 2.8 s) before the lock does
 * (4 s): a holder that went away with it (a page that navigated in the middle of a refresh) or is still
 * at work (another tab's refresh, with its retries) would make the sign-in fail. Instead, wait until
 * the held lock's expiry, then try once more. Null only when someone holds it again by then.
 */
export async function acquireCookieLockOrOutwait(
  entry: StorageEntry<Lock>,
  options: LockOptions = REFRESH_LOCK,
  context: LockContext = defaultLockContext,
): Promise<(() => void) | null> {
  const release = await acquireCookieLock(entry, options, context);
  if (release) return release;
  const delay = outwaitDelay(read(entry), context.now(), options.expiryMs);
  if (delay !== null) await context.sleep(delay);
  return acquireCookieLock(entry, options, context);
}

/** Non-waiting variant: true when the lock was free and is now ours until it expires. */
export function tryTakeLock(
  entry: StorageEntry<Lock>,
  ttlMs: number,
  context: LockContext = defaultLockContext,
): boolean {
  if (isLockHeld(read(entry), context.now())) return false;
  write(entry, { id: context.newId(), expiresAt: context.now() + ttlMs }, { ttlMs });
  return true;
}
