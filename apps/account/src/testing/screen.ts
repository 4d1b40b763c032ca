import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import type { Application } from '../shared/config/env.ts';
import { defaultConfig, setConfig } from '../shared/config/env.ts';
import { toastStore } from '../shared/errors/error-store.ts';
import { clearBrowserState } from './dom.ts';

/**
 * The hooks every screen test needs: before each test a clean jsdom (cookies, local storage) and the
 * application's development config, and no toasts; after it, unmount and restore the stubbed globals (fetch).
 */
export function resetScreenBetweenTests(application: Application = 'platform'): void {
  beforeEach(() => {
    clearBrowserState();
    // Toasts are app-wide (one store): a toast of an earlier test must not answer for this one.
    toastStore.clear();
    setConfig(defaultConfig(application));
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });
}

/** Puts the jsdom location at `path` (before rendering the router). */
export function goTo(path: string): void {
  window.history.replaceState(null, '', path);
}
