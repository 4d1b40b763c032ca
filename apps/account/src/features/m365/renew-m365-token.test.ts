// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { renewM365Token } from './renew-m365-token.ts';

afterEach(() => vi.unstubAllGlobals());

describe('renewM365Token', () => {
  it('a new Microsoft token, then the backend login again: a token expiring expiresIn × 1000 from now', async () => {
    const { calls, fn } = mockFetch(() => ({
      status: 200,
      body: { accessToken: 'renewed', expiresIn: 600 },
    }));
    const token = await renewM365Token({
      usersUrl: 'http://localhost:4455',
      microsoftCredentials: async () => ({ bearer: 'fresh-id-token', graphAccessToken: 'fresh-graph' }),
      now: () => 5_000,
    });
    expect(token).toEqual({ accessToken: 'renewed', refreshToken: null, expiresAt: 605_000 });
    expect(calls[0]?.url.pathname).toBe('/m365/login');
    expect(calls[0]?.body).toEqual({ graphAccessToken: 'fresh-graph' });
    expect(((fn.mock.calls[0]?.[1] as RequestInit).headers as Record<string, string>).Authorization).toBe(
      'Bearer fresh-id-token',
    );
  });

  it('no Microsoft account any more: no token, and no call', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    const token = await renewM365Token({
      usersUrl: 'http://localhost:4455',
      microsoftCredentials: async () => null,
      now: () => 0,
    });
    expect(token).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('a refused backend login fails the renewal (the lifecycle retries, then logs out)', async () => {
    mockFetch(() => ({ status: 403, body: { errorCode: 'UserNotSubscribedException', message: 'no' } }));
    await expect(
      renewM365Token({
        usersUrl: 'http://localhost:4455',
        microsoftCredentials: async () => ({ bearer: 'teams-token', graphAccessToken: null }),
        now: () => 0,
      }),
    ).rejects.toThrow('Request failed with status code 403');
  });
});
