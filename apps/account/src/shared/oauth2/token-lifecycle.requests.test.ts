// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { clearBrowserState } from '../../testing/dom.ts';
import { registry } from '../storage/registry.ts';
import { read, write } from '../storage/storage.ts';
import { authorizedFetch, NoTokenError } from './token-lifecycle.ts';
import type { TokenContext } from './token-lifecycle.ts';
import { getValidToken } from './token-lifecycle.ts';

const config = { oauth2Url: 'http://localhost:4444', clientId: 'platform' };
let now = 1_000_000;

function deps(fetchImpl: (url: string, init: RequestInit) => Promise<Response>): TokenContext {
  return {
    now: () => now,
    sleep: async (ms) => void (now += ms),
    newId: () => `id-${Math.random()}`,
    fetchImpl: vi.fn(fetchImpl) as unknown as typeof fetch,
  };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

beforeEach(() => {
  clearBrowserState();
  now = 1_000_000;
});

describe('getValidToken', () => {
  it('returns a token that is still valid without calling the server', async () => {
    write(registry.oauth2Token, { accessToken: 'a', refreshToken: 'r', expiresAt: now + 60_000 });
    const d = deps(async () => json(500, {}));
    expect((await getValidToken(config, {}, d))?.accessToken).toBe('a');
    expect(d.fetchImpl).not.toHaveBeenCalled();
  });

  it('refreshes within 30 s of expiry and stores the rotated token', async () => {
    write(registry.oauth2Token, { accessToken: 'a', refreshToken: 'ory_rt_1', expiresAt: now + 10_000 });
    const d = deps(async () => json(200, { access_token: 'b', refresh_token: 'ory_rt_2', expires_in: 3600 }));
    expect(await getValidToken(config, {}, d)).toEqual({
      accessToken: 'b',
      refreshToken: 'ory_rt_2',
      expiresAt: now + 3_600_000,
    });
    expect(read(registry.oauth2Token)?.refreshToken).toBe('ory_rt_2');
    expect(read(registry.refreshLock)).toBeNull();
  });

  it('tries 3 times, 1 s apart, then gives up', async () => {
    write(registry.oauth2Token, { accessToken: 'a', refreshToken: 'ory_rt_1', expiresAt: now - 1 });
    const started = now;
    const d = deps(async () => json(400, { error: 'invalid_grant', error_description: 'used' }));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await getValidToken(config, {}, d)).toBeNull();
    expect(d.fetchImpl).toHaveBeenCalledTimes(3);
    expect(now - started).toBeGreaterThanOrEqual(2000);
    expect(warn).toHaveBeenCalledTimes(3);
    warn.mockRestore();
  });

  it('an expired token without a refresh token needs a new authorization', async () => {
    write(registry.oauth2Token, { accessToken: 'a', refreshToken: null, expiresAt: now - 1 });
    expect(
      await getValidToken(
        config,
        {},
        deps(async () => json(500, {})),
      ),
    ).toBeNull();
  });
});

describe('authorizedFetch', () => {
  it('sends the bearer token', async () => {
    write(registry.oauth2Token, { accessToken: 'a', refreshToken: 'r', expiresAt: now + 3_600_000 });
    const d = deps(async () => json(200, { ok: true }));
    const res = await authorizedFetch(config, 'http://localhost:4455/x', {}, d);
    expect(res.status).toBe(200);
    const [, init] = (d.fetchImpl as unknown as ReturnType<typeof vi.fn>).mock.calls[0] as [
      string,
      RequestInit,
    ];
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer a');
  });

  it('a 401 triggers one refresh and one retry', async () => {
    write(registry.oauth2Token, { accessToken: 'a', refreshToken: 'ory_rt_1', expiresAt: now + 3_600_000 });
    const seen: string[] = [];
    const d = deps(async (url, init) => {
      if (url.endsWith('/oauth2/token'))
        return json(200, { access_token: 'b', refresh_token: 'ory_rt_2', expires_in: 3600 });
      seen.push(new Headers(init.headers).get('Authorization') ?? '');
      return json(401, {});
    });
    const res = await authorizedFetch(config, 'http://localhost:4455/x', {}, d);
    expect(res.status).toBe(401);
    expect(seen).toEqual(['Bearer a', 'Bearer b']);
  });

  it('no token → NoTokenError', async () => {
    await expect(
      authorizedFetch(
        config,
        'http://x',
        {},
        deps(async () => json(200, {})),
      ),
    ).rejects.toBeInstanceOf(NoTokenError);
  });
});
