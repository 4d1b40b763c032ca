import type { Medium, StorageEntry } from './registry.ts';
import { registry } from './registry.ts';

// Reads and writes registry entries. Cookies: path /, SameSite=Lax, Secure on https, domain from config.

interface CookieOptions {
  domain?: string;
  secure: boolean;
}

let cookieOptions: CookieOptions | null = null;

export function configureStorage(options: { cookieDomain?: string; secure?: boolean }): void {
  cookieOptions = {
    domain: options.cookieDomain,
    secure: options.secure ?? (typeof location !== 'undefined' && location.protocol === 'https:'),
  };
}

function options(): CookieOptions {
  return cookieOptions ?? { secure: typeof location !== 'undefined' && location.protocol === 'https:' };
}

/**
 * Reading `document.cookie` asks the browser's cookie store and waits for the answer, on the main
 * thread; the app's start reads a dozen entries at once (the login route's start measured tens of
 * milliseconds in it), and a read right after a write waits longest (the browser's copy is stale
 * then: 5–20 ms at the login route's start, while its requests are under way). One read serves the
 * rest of the current run of script, this module's own writes applied to it: the snapshot goes at
 * the next microtask checkpoint, before any other script (a response that set a cookie, another
 * tab's write seen by a later task) runs. A lock's confirming read comes after a wait, so it always
 * asks the browser.
 */
let cookieSnapshot: string | null = null;

function cookies(): string {
  if (cookieSnapshot === null) {
    cookieSnapshot = document.cookie;
    queueMicrotask(() => {
      cookieSnapshot = null;
    });
  }
  return cookieSnapshot;
}

function readCookie(key: string): string | null {
  const prefix = `${key}=`;
  for (const part of cookies().split(';')) {
    const trimmed = part.trim();
    if (trimmed.startsWith(prefix)) return decodeURIComponent(trimmed.slice(prefix.length));
  }
  return null;
}

function writeCookie(entry: StorageEntry<unknown>, value: string, maxAgeSeconds: number | null): void {
  const o = options();
  let cookie = `${entry.key}=${encodeURIComponent(value)}; Path=/; SameSite=Lax`;
  if (maxAgeSeconds !== null) cookie += `; Max-Age=${maxAgeSeconds}`;
  if (o.domain && !entry.hostOnly) cookie += `; Domain=${o.domain}`;
  if (o.secure) cookie += '; Secure';
  document.cookie = cookie;
  if (cookieSnapshot !== null)
    cookieSnapshot = withCookie(
      cookieSnapshot,
      entry.key,
      maxAgeSeconds === 0 ? null : encodeURIComponent(value),
    );
}

/**
 * A `document.cookie` string with `name` set to `value` (an encoded cookie value), or without it
 * when `value` is null: what the browser answers after this page writes that cookie.
 */
export function withCookie(cookieString: string, name: string, value: string | null): string {
  const nameOf = (part: string) => (part.includes('=') ? part.slice(0, part.indexOf('=')) : part);
  const kept = cookieString
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && nameOf(part) !== name);
  if (value !== null) kept.push(`${name}=${value}`);
  return kept.join('; ');
}

function webStorage(medium: Medium): Storage {
  return medium === 'sessionStorage' ? window.sessionStorage : window.localStorage;
}

function isTeams(): boolean {
  try {
    return window.localStorage.getItem(registry.isTeams.key) === 'true';
  } catch {
    return false;
  }
}

function mediumOf(entry: StorageEntry<unknown>): Medium {
  return entry.mediumInTeams && isTeams() ? entry.mediumInTeams : entry.medium;
}

function readRaw(entry: StorageEntry<unknown>): string | null {
  const medium = mediumOf(entry);
  if (medium === 'cookie') return readCookie(entry.key);
  try {
    return webStorage(medium).getItem(entry.key);
  } catch {
    return null;
  }
}

/** A stored text as the entry's value, or undefined when it is not JSON or not what the schema says. */
function parse<T>(entry: StorageEntry<T>, raw: string): T | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const result = entry.schema.safeParse(parsed);
  return result.success ? result.data : undefined;
}

/** The stored value, or null when absent or invalid (invalid values are removed). */
export function read<T>(entry: StorageEntry<T>): T | null {
  const raw = readRaw(entry as StorageEntry<unknown>);
  if (raw === null) return null;
  const value = parse(entry, raw);
  if (value === undefined) {
    remove(entry);
    return null;
  }
  return value;
}

export function write<T>(entry: StorageEntry<T>, value: T, opts: { ttlMs?: number } = {}): void {
  const raw = JSON.stringify(value);
  if (mediumOf(entry as StorageEntry<unknown>) === 'cookie') {
    const ttl = opts.ttlMs ?? entry.ttlMs;
    writeCookie(
      entry as StorageEntry<unknown>,
      raw,
      ttl === undefined ? null : Math.max(1, Math.ceil(ttl / 1000)),
    );
  } else {
    webStorage(mediumOf(entry as StorageEntry<unknown>)).setItem(entry.key, raw);
  }
}

export function remove<T>(entry: StorageEntry<T>): void {
  // Remove from both media: the isTeams flag may have changed since the value was written. A cookie
  // that is not there is not written (each write is another wait on the cookie store).
  if (readCookie(entry.key) !== null) writeCookie(entry as StorageEntry<unknown>, '', 0);
  try {
    window.localStorage.removeItem(entry.key);
    if (entry.medium === 'sessionStorage') window.sessionStorage.removeItem(entry.key);
  } catch {
    // storage unavailable: nothing to remove
  }
}

/**
 * Moves a value an earlier version of the app kept in local storage into the entry's cookie, once:
 * the local copy goes, and a cookie already there wins. Nothing to do where the entry is not a cookie.
 */
export function adoptLocalStorageValue<T>(entry: StorageEntry<T>): void {
  if (mediumOf(entry as StorageEntry<unknown>) !== 'cookie') return;
  let raw: string | null;
  try {
    raw = window.localStorage.getItem(entry.key);
    if (raw !== null) window.localStorage.removeItem(entry.key);
  } catch {
    return;
  }
  if (raw === null || readCookie(entry.key) !== null) return;
  const value = parse(entry, raw);
  if (value !== undefined) write(entry, value);
}
