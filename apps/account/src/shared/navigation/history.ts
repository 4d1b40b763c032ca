import { useSyncExternalStore } from 'react';

// A tiny History API router core (ADR 0006): in-app navigation with pushState/replaceState,
// full-page navigation for everything that leaves the SPA or needs a fresh document.

export interface AppLocation {
  pathname: string;
  search: string;
  state: unknown;
}

const listeners = new Set<() => void>();
let cached: AppLocation | null = null;
let cachedKey = '';

function snapshot(): AppLocation {
  const key = window.location.pathname + window.location.search;
  const state: unknown = window.history.state;
  if (!cached || cachedKey !== key || cached.state !== state) {
    cached = { pathname: window.location.pathname, search: window.location.search, state };
    cachedKey = key;
  }
  return cached;
}

function notify(): void {
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) window.addEventListener('popstate', notify);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('popstate', notify);
  };
}

export function currentLocation(): AppLocation {
  return snapshot();
}

export function useLocation(): AppLocation {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/** In-app navigation (no reload). */
export function navigate(to: string, options: { replace?: boolean; state?: unknown } = {}): void {
  if (options.replace) window.history.replaceState(options.state ?? null, '', to);
  else window.history.pushState(options.state ?? null, '', to);
  notify();
  window.scrollTo?.(0, 0);
}

/** Full-page navigation, e.g. to another service or application. */
export function redirectTo(url: string): void {
  window.location.href = url;
}

/** Full-page navigation that replaces the current history entry (Back does not come here again). */
export function replaceDocument(url: string): void {
  window.location.replace(url);
}

/**
 * Replaces the current history entry with an in-app path, without a reload (history.replaceState):
 * the screen re-renders for the new location and keeps what it already loaded.
 */
export function replaceLocation(path: string): void {
  navigate(path, { replace: true });
}

export function searchParams(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) out[k] = v;
  return out;
}
