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

function readCookie(key: string): string | null {
  const prefix = `${key}=`;
  for (const part of document.cookie.split(';')) {
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

/** The stored value, or null when absent or invalid (invalid values are removed). */
export function read<T>(entry: StorageEntry<T>): T | null {
  const raw = readRaw(entry as StorageEntry<unknown>);
  if (raw === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    remove(entry);
    return null;
  }
  const result = entry.schema.safeParse(parsed);
  if (!result.success) {
    remove(entry);
    return null;
  }
  return result.data;
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
  // Remove from both media: the isTeams flag may have changed since the value was written.
  writeCookie(entry as StorageEntry<unknown>, '', 0);
  try {
    window.localStorage.removeItem(entry.key);
    if (entry.medium === 'sessionStorage') window.sessionStorage.removeItem(entry.key);
  } catch {
    // storage unavailable: nothing to remove
  }
}
