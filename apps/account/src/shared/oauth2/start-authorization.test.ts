// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../config/env.ts';
import { clearBrowserState } from '../../testing/dom.ts';
import * as history from '../navigation/history.ts';
import { tryTakeLock } from '../storage/cookie-lock.ts';
import { registry } from '../storage/registry.ts';
import { remove } from '../storage/storage.ts';
import { startAuthorization, startAuthorizationWhenFree } from './start-authorization.ts';

describe('starting the authorization under the application-login lock', () => {
  const config = defaultConfig('platform');
  let redirects: string[];

  beforeEach(() => {
    clearBrowserState();
    redirects = [];
    vi.spyOn(history, 'redirectTo').mockImplementation((url: string) => void redirects.push(url));
  });
  afterEach(() => vi.restoreAllMocks());

  it('redirects to the authorize endpoint once; a second run while the lock is held does not', async () => {
    expect(await startAuthorization(config)).toBe(true);
    expect(await startAuthorization(config)).toBe(false);
    expect(redirects).toHaveLength(1);
    expect(redirects[0]).toMatch(/^http:\/\/localhost:4444\/oauth2\/auth\?/);
  });

  it('startAuthorizationWhenFree waits for a held lock, then redirects', async () => {
    expect(tryTakeLock(registry.loginLock, 2000)).toBe(true);
    const sleeps: number[] = [];
    await startAuthorizationWhenFree(config, 2000, async (ms) => {
      sleeps.push(ms);
      remove(registry.loginLock); // the other run's lock expires
    });
    expect(sleeps).toEqual([500]);
    expect(redirects).toHaveLength(1);
  });
});
