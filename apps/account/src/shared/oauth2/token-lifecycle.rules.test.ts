// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { clearBrowserState } from '../../testing/dom.ts';
import type { OAuth2Token } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import { read, write } from '../storage/storage.ts';
import type { TokenContext } from './token-lifecycle.ts';
import {
  authorizedFetch,
  NoTokenError,
  obtainToken,
  readToken,
  registerTokenRenewal,
  scheduleBackgroundRefresh,
  setTokenLostHandler,
  storeToken,
  tokenFetch,
  useTeamsMedium,
} from './token-lifecycle.ts';

// The four renewal rules and the extension point, on a fake clock (sleep advances it).

const config = { oauth2Url: 'http://localhost:4444', clientId: 'platform' };
let now = 5_000_000;
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

function context(fetchImpl: (url: string, init: RequestInit) => Promise<Response>): TokenContext {
  return {
    now: () => now,
    sleep: async (ms) => void (now += ms),
    newId: () => `id-${Math.random()}`,
    fetchImpl: vi.fn(fetchImpl) as unknown as typeof fetch,
  };
}
const calls = (c: TokenContext) => (c.fetchImpl as unknown as ReturnType<typeof vi.fn>).mock.calls;
const token = (expiresIn: number, refreshToken: string | null = 'ory_rt_1'): OAuth2Token => ({
  accessToken: 'at-1',
  refreshToken,
  expiresAt: now + expiresIn,
});
/** A JWT-shaped access token of an authentication mode (the payload is all that is read). */
const jwtOf = (mode: string) =>
  `x.${btoa(JSON.stringify({ ext: { user: { authenticationMode: mode } } })).replace(/=+$/, '')}.y`;

beforeEach(() => {
  clearBrowserState();
  sessionStorage.clear();
  now = 5_000_000;
  setTokenLostHandler(() => {});
});

describe('rule 1: an expired token is refreshed, else re-authorized, else the full-reauth message', () => {
  it('expired with a working refresh token → the refreshed token', async () => {
    storeToken(token(-1));
    const c = context(async () =>
      json(200, { access_token: 'at-2', refresh_token: 'ory_rt_2', expires_in: 3600 }),
    );
    const outcome = await obtainToken(config, c);
    expect(outcome).toEqual({
      type: 'token',
      token: { accessToken: 'at-2', refreshToken: 'ory_rt_2', expiresAt: now + 3_600_000 },
    });
  });

  it('refresh refused → a new authorization; refused again right after → the full-reauth message', async () => {
    storeToken(token(-1));
    const refused = context(async () => json(400, { error: 'invalid_grant' }));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await obtainToken(config, refused)).toEqual({ type: 'authorize' });
    now += 5_000;
    expect(await obtainToken(config, refused)).toEqual({
      type: 'failed',
      message: 'Unable to obtain OAuth2 tokens, a full reauth may be needed',
    });
  });

  it('a refused refresh long after the last authorization → a new authorization again', async () => {
    storeToken(token(-1, null));
    const c = context(async () => json(500, {}));
    expect(await obtainToken(config, c)).toEqual({ type: 'authorize' });
    now += 61_000;
    expect(await obtainToken(config, c)).toEqual({ type: 'authorize' });
  });
});

describe('rule 2: a 401 triggers one refresh and one retry', () => {
  it('the retry carries the new token, and a second 401 is returned as it is', async () => {
    storeToken(token(3_600_000));
    const seen: string[] = [];
    const c = context(async (url, init) => {
      if (url.endsWith('/oauth2/token'))
        return json(200, { access_token: 'at-2', refresh_token: 'ory_rt_2', expires_in: 3600 });
      seen.push(new Headers(init.headers).get('Authorization') ?? '');
      return json(401, {});
    });
    expect((await authorizedFetch(config, 'http://localhost:4455/me', {}, c)).status).toBe(401);
    expect(seen).toEqual(['Bearer at-1', 'Bearer at-2']);
    expect(calls(c).filter(([url]) => String(url).endsWith('/oauth2/token'))).toHaveLength(1);
  });
});

describe('rule 3: background refresh 60 s before expiry, only with more than 120 s left', () => {
  it('schedules at expiry − 60 s and stores the renewed token', async () => {
    storeToken(token(600_000));
    const c = context(async () =>
      json(200, { access_token: 'at-2', refresh_token: 'ory_rt_2', expires_in: 3600 }),
    );
    let scheduled: { run: () => void; ms: number } | null = null;
    const renewed = new Promise<OAuth2Token | null>((resolve) => {
      scheduleBackgroundRefresh(config, resolve, {
        ...c,
        setTimer: (run, ms) => {
          scheduled = { run, ms };
          return () => {};
        },
      });
    });
    expect(scheduled!.ms).toBe(540_000);
    now += 540_000;
    scheduled!.run();
    expect((await renewed)?.accessToken).toBe('at-2');
    expect(readToken()?.accessToken).toBe('at-2');
  });

  it('120 s or less left → nothing scheduled', () => {
    storeToken(token(120_000));
    const setTimer = vi.fn(() => () => {});
    scheduleBackgroundRefresh(config, () => {}, { ...context(async () => json(500, {})), setTimer });
    expect(setTimer).not.toHaveBeenCalled();
  });
});

describe('rule 4: a bearer token within 30 s of expiry gets 3 attempts 1 s apart, then logout', () => {
  it('three refused attempts, 1 s apart, then the token is dropped and the user logged out', async () => {
    storeToken(token(20_000));
    const started = now;
    const c = context(async () => json(400, { error: 'invalid_grant' }));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const loggedOut = vi.fn();
    setTokenLostHandler(loggedOut);
    await expect(authorizedFetch(config, 'http://localhost:4455/me', {}, c)).rejects.toBeInstanceOf(
      NoTokenError,
    );
    expect(calls(c)).toHaveLength(3);
    // 30 ms to confirm the lock, then two 1 s pauses between the three attempts.
    expect(now - started).toBe(30 + 2_000);
    expect(loggedOut).toHaveBeenCalledTimes(1);
    expect(readToken()).toBeNull();
  });

  it('the second attempt succeeds → the request goes out with the new token', async () => {
    storeToken(token(20_000));
    let tries = 0;
    const c = context(async (url, init) => {
      if (url.endsWith('/oauth2/token')) {
        tries++;
        return tries === 1 ? json(503, {}) : json(200, { access_token: 'at-2', expires_in: 3600 });
      }
      return json(200, { auth: new Headers(init.headers).get('Authorization') });
    });
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const res = await authorizedFetch(config, 'http://localhost:4455/me', {}, c);
    expect(await res.json()).toEqual({ auth: 'Bearer at-2' });
    expect(readToken()?.refreshToken).toBe('ory_rt_1');
  });
});

describe('the cookie lock is shared: a tab that waited finds the token another tab renewed', () => {
  it('no second refresh while the lock is held by another tab that stores a new token', async () => {
    storeToken(token(-1));
    write(registry.refreshLock, { id: 'other-tab', expiresAt: now + 4_000 }, { ttlMs: 4_000 });
    const c = context(async () => json(500, {}));
    c.sleep = async (ms) => {
      now += ms;
      // The other tab finishes: new token, lock released.
      storeToken({ accessToken: 'from-other-tab', refreshToken: 'ory_rt_9', expiresAt: now + 3_600_000 });
      write(registry.refreshLock, { id: 'other-tab', expiresAt: 0 }, { ttlMs: 1 });
    };
    expect(await obtainToken(config, c)).toMatchObject({
      type: 'token',
      token: { accessToken: 'from-other-tab' },
    });
    expect(calls(c)).toHaveLength(0);
  });
});

describe('extension point: tokens of another authentication mode renew their own way', () => {
  it('an m365 token is renewed by its registered renewal, without a refresh token', async () => {
    storeToken({ accessToken: jwtOf('m365'), refreshToken: null, expiresAt: now - 1 });
    const renew = vi.fn(async () => ({
      accessToken: jwtOf('m365') + 'new',
      refreshToken: null,
      expiresAt: now + 3_600_000,
    }));
    const unregister = registerTokenRenewal('m365', { needsRefreshToken: false, renew });
    try {
      const outcome = await obtainToken(
        config,
        context(async () => json(500, {})),
      );
      expect(outcome.type).toBe('token');
      expect(renew).toHaveBeenCalledTimes(1);
      expect(readToken()?.accessToken.endsWith('new')).toBe(true);
    } finally {
      unregister();
    }
  });
});

describe('medium and the user-service fetch', () => {
  it('isTeams moves the token to local storage, and back', () => {
    storeToken(token(3_600_000));
    expect(document.cookie).toContain('oauth2_token=');
    useTeamsMedium(true);
    expect(document.cookie).not.toContain('oauth2_token=');
    expect(localStorage.getItem('oauth2_token')).not.toBeNull();
    expect(readToken()?.accessToken).toBe('at-1');
    useTeamsMedium(false);
    expect(localStorage.getItem('oauth2_token')).toBeNull();
    expect(read(registry.oauth2Token)?.accessToken).toBe('at-1');
  });

  it('without a token a user-service call goes out as it is; with one it carries the bearer', async () => {
    const c = context(async (_url, init) =>
      json(200, { auth: new Headers(init?.headers).get('Authorization') }),
    );
    const userFetch = tokenFetch(() => config, c);
    expect(await (await userFetch('http://localhost:4455/login/config', {})).json()).toEqual({ auth: null });
    storeToken(token(3_600_000));
    expect(await (await userFetch('http://localhost:4455/me', {})).json()).toEqual({ auth: 'Bearer at-1' });
  });
});
