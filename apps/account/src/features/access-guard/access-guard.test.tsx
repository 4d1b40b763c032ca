// @vitest-environment jsdom
import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { initialPagePath } from '../../shared/config/paths.ts';
import * as history from '../../shared/navigation/history.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { fakeJwt, kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

// The guard as the pages run it: the landing pages and the welcome page, on several applications.

const NOW = Date.now();
const SESSION = kratosSession();

function signIn(ext: Record<string, unknown>) {
  write(registry.oauth2Token, {
    accessToken: fakeJwt({ exp: NOW / 1000 + 3600, ext: { user: { authenticationMode: 'ory' }, ...ext } }),
    refreshToken: 'ory_rt_1',
    expiresAt: NOW + 3_600_000,
  });
  mockFetch(({ url }) =>
    url.pathname === '/sessions/whoami' ? { status: 200, body: SESSION } : { status: 404, body: {} },
  );
}

resetScreenBetweenTests();

describe('access guard on the pages', () => {
  it('without a token goes to login without asking for the session first', async () => {
    const whoamiFrom: string[] = [];
    mockFetch(({ url }) => {
      if (url.pathname !== '/sessions/whoami') return { status: 404, body: {} };
      whoamiFrom.push(window.location.pathname);
      return { status: 401, body: {} };
    });
    goTo('/research');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
    await waitFor(() => expect(whoamiFrom.length).toBeGreaterThan(0));
    expect(whoamiFrom.every((path) => path === '/account/login')).toBe(true);
  });

  it('Platform without the Platform product shows the product Access Denied page', async () => {
    signIn({ products: ['MAGIC'], scopeGroups: [], subscriptionStatus: 'subscribed' });
    goTo('/research');
    render(<Router />);
    expect(
      await screen.findByText(
        'You are not authorised to access product Platform. Please contact support@acme.test for support.',
      ),
    ).toBeTruthy();
    expect(screen.queryByTestId('token-ext')).toBeNull();
  });

  it('a configured scope group the token lacks shows the generic page', async () => {
    setConfig({ ...defaultConfig('admin'), requiredScopeGroups: ['operators'] });
    signIn({ products: ['Platform'], scopeGroups: ['research'] });
    goTo('/research');
    render(<Router />);
    expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
  });

  it('an m365 token is let into MAGIC (which allows m365)', async () => {
    setConfig(defaultConfig('magic'));
    write(registry.oauth2Token, {
      accessToken: fakeJwt({
        exp: NOW / 1000 + 3600,
        ext: { user: { authenticationMode: 'm365' }, products: ['MAGIC'] },
      }),
      refreshToken: null,
      expiresAt: NOW + 3_600_000,
    });
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/research');
    render(<Router />);
    expect(await screen.findByTestId('token-ext')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('MAGIC · research');
  });

  it('an unsubscribed organisation is sent from the landing page to the welcome page', async () => {
    signIn({ products: [], scopeGroups: [], subscriptionStatus: 'not_subscribed' });
    goTo('/research');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/welcome'));
    expect(await screen.findByTestId('welcome-no-subscription')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Welcome to Platform');
    expect(screen.getByRole('link', { name: 'Subscribe to the offer' }).getAttribute('href')).toBe(
      'http://localhost:4540/',
    );
    expect(screen.getByRole('link', { name: 'support@acme.test' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );
    expect(screen.getByRole('link', { name: 'Log out' }).getAttribute('href')).toBe('/account/logout');
  });

  it('the welcome page needs a signed-in user: a guest goes to login', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/welcome');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
  });

  it('a page of the initial-page table is a landing page, and the table picks it after sign-in', async () => {
    setConfig({
      ...defaultConfig('dashboard'),
      initialPage: { default: 'research', rules: [{ scopeGroups: ['ops'], page: 'deployments' }] },
    });
    signIn({ products: ['Platform'], scopeGroups: ['ops'] });
    expect(initialPagePath(defaultConfig('dashboard').initialPage)).toBe('/research');
    expect(
      initialPagePath({ default: 'research', rules: [{ scopeGroups: ['ops'], page: 'deployments' }] }),
    ).toBe('/deployments');
    goTo('/deployments');
    render(<Router />);
    expect(await screen.findByTestId('token-ext')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('dashboard · deployments');
  });
});

describe('welcome page for a subscribed organisation', () => {
  it('sends the user on to the initial page', async () => {
    signIn({ products: ['Platform'], scopeGroups: [], subscriptionStatus: 'subscribed' });
    goTo('/welcome');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(await screen.findByTestId('token-ext')).toBeTruthy();
  });
});

describe('the first-login flag', () => {
  it('the landing page greets once after the onboarding sign-in, then forgets the flag', async () => {
    signIn({ products: ['Platform'], scopeGroups: [], subscriptionStatus: 'subscribed' });
    write(registry.firstLogin, true);
    goTo('/research');
    const first = render(<Router />);
    expect((await screen.findByTestId('first-login')).textContent).toBe(
      'Welcome to Platform: your account is ready.',
    );
    expect(read(registry.firstLogin)).toBeNull();
    first.unmount();
    render(<Router />);
    expect(await screen.findByTestId('token-ext')).toBeTruthy();
    expect(screen.queryByTestId('first-login')).toBeNull();
  });
});

describe('tabs in step (cookie-change polling every 300 ms)', () => {
  it('a logout in another tab (the token cookie removed) sends this tab to login within a poll', async () => {
    signIn({ products: ['Platform'], scopeGroups: [], subscriptionStatus: 'subscribed' });
    goTo('/research');
    render(<Router />);
    expect(await screen.findByTestId('token-ext')).toBeTruthy();
    expect(screen.getByTestId('versions').textContent).toBe('sign-in wrapper 2.2.0 · Teams SDK 2.30.0');
    // The other tab's logout: the shared cookie is gone.
    remove(registry.oauth2Token);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'), { timeout: 2000 });
  });
});

describe('a page whose token cannot be renewed while another sign-in holds the application-login lock', () => {
  // This tab's memory of a new authorization started a moment ago (session storage) is per test.
  beforeEach(() => remove(registry.reauthorizeStartedAt));
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('ends with the message and the way back to the sign-in page, not an endless "Loading…"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const redirects: string[] = [];
    vi.spyOn(history, 'redirectTo').mockImplementation((url: string) => void redirects.push(url));
    const now = Date.now();
    // A token due now whose refresh the authorization server refuses (the person was deactivated).
    write(registry.oauth2Token, {
      accessToken: fakeJwt({ exp: now / 1000 - 10, ext: { user: { authenticationMode: 'ory' } } }),
      refreshToken: 'ory_rt_refused',
      expiresAt: now - 10_000,
    });
    mockFetch(({ url }) =>
      url.pathname === '/oauth2/token'
        ? { status: 400, body: { error: 'invalid_grant' } }
        : { status: 401, body: {} },
    );
    // Another sign-in keeps the lock (written for longer than the 30 s an SSO step takes).
    write(registry.loginLock, { id: 'other-tab/page', expiresAt: now + 120_000 }, { ttlMs: 120_000 });
    goTo('/research');
    render(<Router />);
    expect(await screen.findByText('Loading…')).toBeTruthy();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(
      await screen.findByText(
        'Another sign-in is still in progress in this browser, so a new one could not start. Go back to the sign-in page to try again.',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Login' })).toBeTruthy();
    expect(redirects).toEqual([]);
  });

  it('starts the new authorization once the lock is released', async () => {
    const redirects: string[] = [];
    vi.spyOn(history, 'redirectTo').mockImplementation((url: string) => void redirects.push(url));
    const now = Date.now();
    write(registry.oauth2Token, {
      accessToken: fakeJwt({ exp: now / 1000 - 10, ext: { user: { authenticationMode: 'ory' } } }),
      refreshToken: null,
      expiresAt: now - 10_000,
    });
    mockFetch(() => ({ status: 401, body: {} }));
    write(registry.loginLock, { id: 'other-tab/page', expiresAt: now + 30_000 }, { ttlMs: 30_000 });
    goTo('/research');
    render(<Router />);
    expect(await screen.findByText('Loading…')).toBeTruthy();
    remove(registry.loginLock);
    await waitFor(() => expect(redirects).toHaveLength(1));
    expect(redirects[0]).toMatch(/\/oauth2\/auth\?/);
  });
});
