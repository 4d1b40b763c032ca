// @vitest-environment jsdom
import { render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../app/router.tsx';
import { registry } from '../shared/storage/registry.ts';
import { read, write } from '../shared/storage/storage.ts';
import { mockFetch } from '../testing/fetch-mock.ts';
import { fakeJwt, kratosSession } from '../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../testing/screen.ts';
import { consentRequest } from '../testing/fixtures.ts';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), replaceLocation: vi.fn() }));
vi.mock('../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  replaceLocation: nav.replaceLocation,
}));

const NOW = Date.now();
const ACCESS = fakeJwt({
  exp: NOW / 1000 + 3600,
  ext: { user: { authenticationMode: 'ory' }, products: ['Platform'], scopeGroups: [] },
});
const SESSION = kratosSession();
const whoami = (url: URL) =>
  url.pathname === '/sessions/whoami' ? { status: 200, body: SESSION } : undefined;

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
  nav.replaceLocation.mockReset();
});

describe('callback', () => {
  it('validates state, exchanges the code under the lock, stores the token, clears login state, lands on /research', async () => {
    write(registry.authorizationParams, {
      codeVerifier: 'v'.repeat(43),
      state: 'state-1234',
      expiration: NOW + 60_000,
    });
    write(registry.loginChallenge, 'ch-1');
    write(registry.emailResult, { email: 'ada@acme.test', isSSO: false, isM365: false, provider: null });
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/oauth2/token') {
        return {
          status: 200,
          body: { access_token: ACCESS, refresh_token: 'ory_rt_1', expires_in: 3600, token_type: 'bearer' },
        };
      }
      return whoami(url);
    });
    goTo('/account/callback?code=ory_ac_1&state=state-1234&scope=openid');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    const token = read(registry.oauth2Token)!;
    expect(token.accessToken).toBe(ACCESS);
    expect(token.refreshToken).toBe('ory_rt_1');
    expect(token.expiresAt).toBeGreaterThanOrEqual(NOW + 3_600_000);
    const exchange = calls.find((c) => c.url.pathname === '/oauth2/token')!;
    expect(Object.fromEntries(new URLSearchParams(exchange.body as string))).toEqual({
      grant_type: 'authorization_code',
      code: 'ory_ac_1',
      redirect_uri: 'http://localhost:3000/account/callback',
      code_verifier: 'v'.repeat(43),
      client_id: 'platform',
    });
    expect(read(registry.loginChallenge)).toBeNull();
    expect(read(registry.emailResult)).toBeNull();
    expect(read(registry.authorizationParams)).toBeNull();
    expect(read(registry.refreshLock)).toBeNull();
    expect(await screen.findByText('ada@acme.test')).toBeTruthy();
  });

  it('shows an OAuth2 error with Back to Login', async () => {
    mockFetch((c) => whoami(c.url));
    goTo('/account/callback?error=access_denied&error_description=The+user+denied');
    render(<Router />);
    expect(await screen.findByText('OAuth2 error access_denied. The user denied')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href')).toBe('/account/login');
    expect(screen.getByText('If the problem persists, please contact support.')).toBeTruthy();
  });

  it('shows the token endpoint error', async () => {
    write(registry.authorizationParams, {
      codeVerifier: 'v'.repeat(43),
      state: 'state-1234',
      expiration: NOW + 60_000,
    });
    mockFetch(({ url }) =>
      url.pathname === '/oauth2/token'
        ? { status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } }
        : whoami(url),
    );
    goTo('/account/callback?code=ory_ac_1&state=state-1234');
    render(<Router />);
    expect(await screen.findByText('OAuth2 error invalid_grant. grant request is invalid')).toBeTruthy();
  });
});

describe('consent', () => {
  it('posts the consent with the session id and follows redirectTo', async () => {
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/login/consent/request'
        ? { status: 200, body: consentRequest() }
        : url.pathname === '/login/consent'
          ? { status: 200, body: { redirectTo: 'http://localhost:4444/oauth2/auth/z' } }
          : whoami(url),
    );
    goTo('/account/consent?consent_challenge=cc-1');
    render(<Router />);
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth/z'));
    const post = calls.find((c) => c.url.pathname === '/login/consent')!;
    expect(post.body).toEqual({ consentChallenge: 'cc-1', identitySessionId: 'sess-1' });
    expect(post.url.origin).toBe('http://localhost:4455');
  });

  it('without a challenge: "Error logging in: missing consent challenge"', async () => {
    mockFetch(({ url }) => whoami(url));
    goTo('/account/consent');
    render(<Router />);
    expect(await screen.findByText('Error logging in: missing consent challenge')).toBeTruthy();
  });

  it('without a session: retries login once, then "Error logging in: missing session"', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/account/consent?consent_challenge=cc-1');
    const first = render(<Router />);
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('/account/login'));
    expect(read(registry.missingSessionRetried)).toBe(true);
    first.unmount();
    goTo('/account/consent?consent_challenge=cc-1');
    render(<Router />);
    expect(await screen.findByText('Error logging in: missing session')).toBeTruthy();
  });

  it('a failed consent call shows the multi-tab error', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/login/consent'
        ? { status: 409, body: { errorCode: 'X', message: 'gone' } }
        : whoami(url),
    );
    goTo('/account/consent?consent_challenge=cc-1');
    render(<Router />);
    expect(
      await screen.findByText(
        'Error in the consent flow, this can happen when login is initiated in different tabs at the same time.',
      ),
    ).toBeTruthy();
  });
});

describe('logout', () => {
  it('clears local state, creates the logout flow towards the authorization server and goes to logout_url', async () => {
    write(registry.oauth2Token, { accessToken: ACCESS, refreshToken: null, expiresAt: null });
    write(registry.emailResult, { email: 'ada@acme.test', isSSO: false, isM365: false, provider: null });
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/self-service/logout/browser'
        ? {
            status: 200,
            body: {
              logout_url: 'http://localhost:4433/self-service/logout?token=ory_lo_1',
              logout_token: 'ory_lo_1',
            },
          }
        : undefined,
    );
    goTo('/account/logout');
    render(<Router />);
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4433/self-service/logout?token=ory_lo_1'),
    );
    expect(calls[0]!.url.searchParams.get('return_to')).toBe('http://localhost:4444/oauth2/sessions/logout');
    expect(calls[0]!.credentials).toBe('include');
    expect(read(registry.oauth2Token)).toBeNull();
    expect(read(registry.emailResult)).toBeNull();
    expect(read(registry.logoutState)).toBe('in_progress');
  });

  it('accepts a logout challenge through the user service', async () => {
    write(registry.logoutState, 'in_progress');
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/login/logout'
        ? {
            status: 200,
            body: { redirectTo: 'http://localhost:4444/oauth2/sessions/logout?logout_verifier=v' },
          }
        : undefined,
    );
    goTo('/account/logout?logout_challenge=lc-1');
    render(<Router />);
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith(
        'http://localhost:4444/oauth2/sessions/logout?logout_verifier=v',
      ),
    );
    expect(calls[0]!.body).toEqual({ logoutChallenge: 'lc-1' });
    expect(read(registry.logoutState)).toBe('completed');
  });

  it('a 401 creating the logout flow falls back to login', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/sessions/whoami'
        ? { status: 200, body: SESSION }
        : { status: 401, body: { error: { code: 401 } } },
    );
    goTo('/account/logout');
    render(<Router />);
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('/account/login'));
    expect(read(registry.logoutState)).toBe('completed');
  });

  it('a signed-out visitor on a bare logout goes to login (the route is not guest-allowed)', async () => {
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    goTo('/account/logout');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
    expect(nav.redirectTo).not.toHaveBeenCalledWith('/account/login');
  });
});

describe('research and access denied', () => {
  it('shows the signed-in email, the ext claims and a logout link', async () => {
    write(registry.oauth2Token, {
      accessToken: ACCESS,
      refreshToken: 'ory_rt_1',
      expiresAt: NOW + 3_600_000,
    });
    mockFetch(({ url }) => whoami(url));
    goTo('/research');
    render(<Router />);
    expect(await screen.findByText('ada@acme.test')).toBeTruthy();
    expect(screen.getByTestId('token-ext').textContent).toContain('"Platform"');
    expect(screen.getByRole('link', { name: 'Log out' }).getAttribute('href')).toBe('/account/logout');
    // Opened from this application: the account page offers the way back to it.
    expect(screen.getByRole('link', { name: 'Account settings' }).getAttribute('href')).toBe(
      '/account/settings?from=platform',
    );
  });

  it('without a token goes to login', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/research');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
  });

  it('shows the name and email the token carries (m365 people have no identity session)', async () => {
    const named = fakeJwt({
      exp: NOW / 1000 + 3600,
      ext: {
        user: { authenticationMode: 'ory', email: 'megan@contoso.test', name: 'Megan Bowen' },
        products: ['Platform'],
      },
    });
    write(registry.oauth2Token, { accessToken: named, refreshToken: 'r', expiresAt: NOW + 3_600_000 });
    mockFetch(({ url }) => whoami(url));
    goTo('/research');
    render(<Router />);
    expect((await screen.findByTestId('signed-in-name')).textContent).toContain('Megan Bowen');
    expect(screen.getByTestId('signed-in-email').textContent).toBe('megan@contoso.test');
  });

  it('an m365 token on Platform (ory only) shows the unauthorised-mode page', async () => {
    const m365 = fakeJwt({ exp: NOW / 1000 + 3600, ext: { user: { authenticationMode: 'm365' } } });
    write(registry.oauth2Token, { accessToken: m365, refreshToken: null, expiresAt: NOW + 3_600_000 });
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/research');
    render(<Router />);
    expect(
      await screen.findByText(
        'You are not authorised to access Platform with Microsoft 365 sign-in. Log out, then sign in with email and password or single sign-on.',
      ),
    ).toBeTruthy();
  });

  it('renders both Access Denied texts', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/account/access-denied?product=MAGIC');
    const r = render(<Router />);
    expect(
      await screen.findByText(
        'You are not authorised to access product MAGIC. Please contact support@acme.test for support.',
      ),
    ).toBeTruthy();
    r.unmount();
    goTo('/account/access-denied');
    render(<Router />);
    expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
  });

  it('the error page shows an identity-service error by id, Back to Login by default and Retry on request', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/self-service/errors'
        ? { status: 200, body: { id: 'e1', error: { message: 'flow broke' } } }
        : undefined,
    );
    goTo('/account/error?id=e1');
    const r = render(<Router />);
    expect(await screen.findByText('flow broke')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Login' })).toBeTruthy();
    r.unmount();
    goTo('/account/error?mode=retry');
    render(<Router />);
    expect(await screen.findByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('/ goes to the initial page and unknown /account paths to login', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    goTo('/');
    const r = render(<Router />);
    await waitFor(() => expect(window.location.pathname).not.toBe('/'));
    r.unmount();
    goTo('/account');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
  });
});

describe('route access (one table, applied by the router)', () => {
  const noSession = () => ({ status: 401, body: { error: { code: 401 } } });

  it('a signed-out visitor on a guarded route goes to login; profile keeps its flow as profileFlow', async () => {
    mockFetch(noSession);
    goTo('/account/profile?flow=f1');
    render(<Router />);
    await waitFor(() =>
      expect(window.location.pathname + window.location.search).toBe('/account/login?profileFlow=f1'),
    );
  });

  it('a signed-out visitor on m365-logout goes to login', async () => {
    mockFetch(noSession);
    goTo('/account/m365-logout');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
  });

  it('a signed-in visitor (a stored token) reaches a guarded route without waiting for the session', async () => {
    const { calls } = mockFetch(noSession);
    write(registry.oauth2Token, { accessToken: ACCESS, refreshToken: null, expiresAt: NOW + 3_600_000 });
    goTo('/account/error');
    render(<Router />);
    expect(await screen.findByText('If the problem persists, please contact support.')).toBeTruthy();
    expect(window.location.pathname).toBe('/account/error');
    expect(calls.filter((c) => c.url.pathname === '/sessions/whoami')).toHaveLength(0);
  });
});
