// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../config/env.ts';
import { clearBrowserState } from '../../testing/dom.ts';
import * as history from '../navigation/history.ts';
import { tryTakeLock } from '../storage/cookie-lock.ts';
import { registry } from '../storage/registry.ts';
import { remove, write } from '../storage/storage.ts';
import {
  decideHeldAuthorization,
  startAuthorization,
  startAuthorizationOrGiveUp,
  startAuthorizationWhenFree,
} from './start-authorization.ts';

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

describe('decideHeldAuthorization: a held lock ends in an authorization or a message, never an endless wait', () => {
  const T = 1_000_000;
  const lock = (expiresIn: number) => ({ id: 'other-tab/page', expiresAt: T + expiresIn });
  it.each([
    ['no lock (released meanwhile): look again at once', null, T, { type: 'retry', inMs: 25 }],
    ['a 2 s lock with 300 ms left: at its expiry', lock(300), T, { type: 'retry', inMs: 325 }],
    [
      'the SSO step’s 30 s lock: every 500 ms (its holder may release it)',
      lock(30_000),
      T,
      { type: 'retry', inMs: 500 },
    ],
    ['an expired lock: at once', lock(-5_000), T, { type: 'retry', inMs: 25 }],
    ['29.9 s of waiting: still looking', lock(30_000), T - 29_900, { type: 'retry', inMs: 500 }],
    [
      '30 s of waiting for a lock still held: give up (message and the sign-in page)',
      lock(30_000),
      T - 30_000,
      { type: 'give-up' },
    ],
  ] as const)('%s', (_name, held, waitingSince, expected) => {
    expect(decideHeldAuthorization({ lock: held, now: T, waitingSince })).toEqual(expected);
  });
});

describe('startAuthorizationOrGiveUp', () => {
  const config = defaultConfig('platform');
  let redirects: string[];
  beforeEach(() => {
    clearBrowserState();
    redirects = [];
    vi.spyOn(history, 'redirectTo').mockImplementation((url: string) => void redirects.push(url));
  });
  afterEach(() => vi.restoreAllMocks());

  it('gives up after 30 s of a lock another sign-in keeps taking; redirects nowhere', async () => {
    let now = Date.now();
    const retake = () =>
      write(registry.loginLock, { id: 'other/page', expiresAt: now + 2000 }, { ttlMs: 60_000 });
    retake();
    const started = await startAuthorizationOrGiveUp(config, {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
        retake();
      },
    });
    expect(started).toBe(false);
    expect(redirects).toEqual([]);
  });

  it('starts as soon as the lock is released', async () => {
    write(registry.loginLock, { id: 'other/page', expiresAt: Date.now() + 30_000 }, { ttlMs: 30_000 });
    const sleeps: number[] = [];
    const started = await startAuthorizationOrGiveUp(config, {
      now: () => Date.now(),
      sleep: async (ms) => {
        sleeps.push(ms);
        remove(registry.loginLock);
      },
    });
    expect(started).toBe(true);
    expect(sleeps).toEqual([500]);
    expect(redirects).toHaveLength(1);
  });
});
