// @vitest-environment jsdom
import { renderHook, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { fakeJwt } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { useLogout } from './use-logout.ts';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), navigate: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  navigate: nav.navigate,
}));

const token = (mode: string) => ({
  accessToken: fakeJwt({ exp: Date.now() / 1000 + 600, ext: { user: { authenticationMode: mode } } }),
  refreshToken: null,
  expiresAt: Date.now() + 600_000,
});
const logoutFlow = () =>
  mockFetch(({ url }) =>
    url.pathname === '/self-service/logout/browser'
      ? {
          status: 200,
          body: { logout_url: 'http://localhost:4433/self-service/logout?token=t', logout_token: 't' },
        }
      : undefined,
  );

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
  nav.navigate.mockReset();
});

describe('useLogout: a Microsoft account still signed in is signed out too, whatever the mode of the token', () => {
  it('with an ory token and a Microsoft account: the identity logout first, the Microsoft sign-out marked for after it', async () => {
    logoutFlow();
    write(registry.oauth2Token, token('ory'));
    renderHook(() => useLogout({}, () => Promise.resolve(true)));
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4433/self-service/logout?token=t'),
    );
    expect(read(registry.cloudSignOutPending)).toBe(true);
    expect(read(registry.oauth2Token)).toBeNull();
  });

  it('with an ory token and no Microsoft account: the identity logout only', async () => {
    logoutFlow();
    write(registry.oauth2Token, token('ory'));
    renderHook(() => useLogout({}, () => Promise.resolve(false)));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalled());
    expect(read(registry.cloudSignOutPending)).toBeNull();
  });

  it('waits for MSAL before starting (no logout flow while the answer is unknown)', async () => {
    const { calls } = logoutFlow();
    renderHook(() => useLogout({}, () => new Promise<boolean>(() => undefined)));
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toHaveLength(0);
    expect(nav.redirectTo).not.toHaveBeenCalled();
  });

  it('an m365 token goes to the m365 logout subpage without asking MSAL', async () => {
    logoutFlow();
    write(registry.oauth2Token, token('m365'));
    const ask = vi.fn(() => new Promise<boolean>(() => undefined));
    renderHook(() => useLogout({}, ask));
    await waitFor(() => expect(nav.navigate).toHaveBeenCalledWith('/account/m365-logout', { replace: true }));
  });
});
