// @vitest-environment jsdom
import { render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tabId } from '../../shared/storage/cookie-lock.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { LoginScreen } from './login-screen.tsx';
import { lockWaitMs } from './use-login-effects.ts';

// Coming back to the site at once after a logout: the login page of the previous navigation took
// the application-login lock and left for the authorization server, and the new page's whoami
// answers while that lock is still held. The page must authorize as soon as the lock allows it.

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), replaceLocation: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  replaceLocation: nav.replaceLocation,
}));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const authorizeRedirects = () =>
  nav.redirectTo.mock.calls.map(([url]) => String(url)).filter((url) => url.includes('/oauth2/auth?'));

resetScreenBetweenTests();
beforeEach(() => {
  window.history.replaceState(null, '', '/account/login');
  nav.redirectTo.mockReset();
  nav.replaceLocation.mockReset();
});

describe('login after a quick return (lock held, whoami answered late)', () => {
  it('a held lock seen only after a delayed whoami 401 still leads to the authorization', async () => {
    // Another tab holds the lock for a short while; whoami answers 401 while it is still held.
    write(registry.loginLock, { id: 'another-tab/page', expiresAt: Date.now() + 400 }, { ttlMs: 400 });
    mockFetch(async ({ url }) => {
      if (url.pathname === '/sessions/whoami') {
        await sleep(50);
        return { status: 401, body: { error: { code: 401 } } };
      }
      return undefined;
    });
    render(<LoginScreen search={{}} />);
    // The Email step stays on screen while the page waits for the session and the lock.
    expect(await screen.findByRole('heading', { name: 'Welcome' })).toBeTruthy();
    await waitFor(() => expect(authorizeRedirects()).toHaveLength(1), { timeout: 5_000 });
    expect(read(registry.loginLock)?.id.startsWith(`${tabId()}/`)).toBe(true);
  });

  it('a lock left by an earlier page of the same tab does not hold the new page back', async () => {
    // The abandoned page's lock would last 30 s; the new page of the same tab goes ahead at once.
    write(
      registry.loginLock,
      { id: `${tabId()}/earlier-page`, expiresAt: Date.now() + 30_000 },
      { ttlMs: 30_000 },
    );
    mockFetch(async ({ url }) => {
      if (url.pathname === '/sessions/whoami') {
        await sleep(20);
        return { status: 401, body: { error: { code: 401 } } };
      }
      return undefined;
    });
    render(<LoginScreen search={{}} />);
    await waitFor(() => expect(authorizeRedirects()).toHaveLength(1), { timeout: 5_000 });
  });

  it('a lock held by another tab for longer is waited out, and looked at again until it is free', async () => {
    write(registry.loginLock, { id: 'another-tab/page', expiresAt: Date.now() + 30_000 }, { ttlMs: 30_000 });
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    render(<LoginScreen search={{}} />);
    await sleep(300);
    expect(authorizeRedirects()).toHaveLength(0);
    // The other tab's authorization came back and it released the lock: this page goes ahead.
    remove(registry.loginLock);
    await waitFor(() => expect(authorizeRedirects()).toHaveLength(1), { timeout: 5_000 });
  });
});

describe('lockWaitMs', () => {
  it.each([
    ['no lock known → a quarter of the lock lifetime', null, 500],
    ['expiring in 100 ms → just after it expires', 1_100, 125],
    ['already expired → almost at once', 900, 25],
    ['held for 30 s → look again after a quarter of the lifetime', 31_000, 500],
  ])('%s', (_name, expiresAt, expected) => {
    expect(lockWaitMs(expiresAt, 1_000)).toBe(expected);
  });
});
