// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { acquireCookieLock, acquireCookieLockOrOutwait, outwaitDelay, tryTakeLock } from './cookie-lock.ts';
import { loginStateEntries, registry } from './registry.ts';
import { configureStorage, read, remove, write } from './storage.ts';
import { clearLoginState } from './clear-login-state.ts';

function clearAll() {
  for (const c of document.cookie.split(';')) {
    const name = c.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Path=/; Max-Age=0`;
  }
  localStorage.clear();
}

beforeEach(() => {
  clearAll();
  configureStorage({});
});

describe('storage registry', () => {
  it('declares every key once', () => {
    const keys = Object.values(registry).map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining([
        'login_challenge',
        'oauth2_token',
        'oauth2_authorization_params',
        'isTeams',
        'logout_state',
        'application',
        'missing_session_retried',
      ]),
    );
  });

  it('declares the lifetimes', () => {
    expect(registry.loginChallenge.ttlMs).toBe(600_000);
    expect(registry.ssoRedirectLock.ttlMs).toBe(600_000);
    expect(registry.onboardingState.ttlMs).toBe(86_400_000);
    expect(registry.logoutState.ttlMs).toBe(15_000);
    expect(registry.mfaSetupState.ttlMs).toBe(3_600_000);
    expect(registry.authorizationParams.ttlMs).toBe(3_600_000);
    expect(registry.loginLock.ttlMs).toBe(2_000);
    expect(registry.refreshLock.ttlMs).toBe(4_000);
  });

  it('round-trips cookie values as JSON', () => {
    write(registry.loginChallenge, 'abc=;def');
    expect(read(registry.loginChallenge)).toBe('abc=;def');
    expect(document.cookie).toContain('login_challenge=');
    remove(registry.loginChallenge);
    expect(read(registry.loginChallenge)).toBeNull();
  });

  it('drops invalid values on read', () => {
    document.cookie = 'logout_state=%22nonsense%22; Path=/';
    expect(read(registry.logoutState)).toBeNull();
    expect(document.cookie).not.toContain('logout_state');
    document.cookie = 'oauth2_token=not-json; Path=/';
    expect(read(registry.oauth2Token)).toBeNull();
  });

  it('keeps authorization params in local storage', () => {
    const params = { codeVerifier: 'v'.repeat(43), state: 'state-123', expiration: 1 };
    write(registry.authorizationParams, params);
    expect(JSON.parse(localStorage.getItem('oauth2_authorization_params')!)).toEqual(params);
    expect(read(registry.authorizationParams)).toEqual(params);
  });

  it('stores the OAuth2 token in a cookie, or in local storage when isTeams is set', () => {
    const token = { accessToken: 'at', refreshToken: null, expiresAt: 5 };
    write(registry.oauth2Token, token);
    expect(document.cookie).toContain('oauth2_token=');
    expect(localStorage.getItem('oauth2_token')).toBeNull();
    remove(registry.oauth2Token);
    write(registry.isTeams, true);
    write(registry.oauth2Token, token);
    expect(document.cookie).not.toContain('oauth2_token=');
    expect(read(registry.oauth2Token)).toEqual(token);
  });

  it('clears the login state but not the isTeams flag', () => {
    write(registry.isTeams, false);
    write(registry.oauth2Token, { accessToken: 'at', refreshToken: null, expiresAt: null });
    write(registry.emailResult, { email: 'a@b.c', isSSO: false, isM365: false, provider: null });
    clearLoginState();
    expect(read(registry.oauth2Token)).toBeNull();
    expect(read(registry.emailResult)).toBeNull();
    expect(read(registry.isTeams)).toBe(false);
    expect(loginStateEntries).not.toContain(registry.isTeams);
  });
});

describe('cookie locks', () => {
  it('tryTakeLock takes a free lock once', () => {
    expect(tryTakeLock(registry.loginLock, 2000)).toBe(true);
    expect(tryTakeLock(registry.loginLock, 2000)).toBe(false);
  });

  it('acquireCookieLock waits for the holder, then times out after maxTries', async () => {
    let now = 0;
    const deps = {
      now: () => now,
      sleep: async (ms: number) => void (now += ms),
      newId: () => `id-${Math.random()}`,
    };
    const release = await acquireCookieLock(registry.refreshLock, undefined, deps);
    expect(release).toBeTypeOf('function');
    // Held (4 s): a second taker retries 40 × 70 ms = 2.8 s and gives up.
    const second = await acquireCookieLock(registry.refreshLock, undefined, deps);
    expect(second).toBeNull();
    release!();
    expect(read(registry.refreshLock)).toBeNull();
    expect(await acquireCookieLock(registry.refreshLock, undefined, deps)).toBeTypeOf('function');
  });

  it('acquireCookieLock takes an expired lock', async () => {
    let now = 10_000;
    write(registry.refreshLock, { id: 'other', expiresAt: 9_000 });
    const deps = { now: () => now, sleep: async (ms: number) => void (now += ms), newId: () => 'mine' };
    expect(await acquireCookieLock(registry.refreshLock, undefined, deps)).toBeTypeOf('function');
    expect(read(registry.refreshLock)?.id).toBe('mine');
  });
});

describe("the callback's taker outwaits a held refresh lock (4 s; the spec's tries end at 2.8 s)", () => {
  /** A fake clock; `holder` runs at every sleep, as another page would meanwhile. */
  function clock(holder: (now: number) => void = () => {}) {
    let now = 0;
    return {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
        holder(now);
      },
      newId: () => `mine-${now}`,
    };
  }
  const held = (expiresAt: number) => write(registry.refreshLock, { id: 'other', expiresAt });

  const rows: [string, () => ReturnType<typeof clock>, number | null][] = [
    ['a free lock: taken at once', () => clock(), 30],
    [
      'a lock a page took just before it went away: taken at its expiry',
      () => {
        held(4_000);
        return clock();
      },
      4_030,
    ],
    [
      'a holder that releases it after a second: taken then',
      () => {
        held(4_000);
        return clock((now) => now >= 1_000 && now < 1_070 && remove(registry.refreshLock));
      },
      1_080,
    ],
    [
      'a live holder that takes it again at each expiry: given up',
      () => {
        held(4_000);
        return clock((now) => now % 4_000 < 100 && held(now + 4_000));
      },
      null,
    ],
  ];
  it.each(rows)('%s', async (_, setUp, takenAt) => {
    const deps = setUp();
    const release = await acquireCookieLockOrOutwait(registry.refreshLock, undefined, deps);
    expect(release === null ? null : deps.now()).toBe(takenAt);
  });

  it("the tries alone give up on the departed page's lock, which still had 1.2 s to live", async () => {
    held(4_000);
    const deps = clock();
    expect(await acquireCookieLock(registry.refreshLock, undefined, deps)).toBeNull();
    expect(deps.now()).toBe(2_800);
  });

  const delays: [string, { id: string; expiresAt: number } | null, number | null][] = [
    ['free', null, null],
    ['expired', { id: 'x', expiresAt: 900 }, null],
    ['1.5 s left', { id: 'x', expiresAt: 2_500 }, 1_500],
    ['a lock claiming longer than a lock lives: its lifetime', { id: 'x', expiresAt: 61_000 }, 4_000],
  ];
  it.each(delays)('outwaitDelay: %s', (_, lock, expected) => {
    expect(outwaitDelay(lock, 1_000, 4_000)).toBe(expected);
  });
});
