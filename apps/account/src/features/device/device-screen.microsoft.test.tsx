// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { fakeJwt } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

// A device's login request on MAGIC's device page: a Microsoft 365 person signed in here accepts it
// with their m365 token, and approves the consent with it; anyone else goes to the login page.

const nav = vi.hoisted(() => ({ redirectTo: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
}));

const M365_TOKEN = fakeJwt({
  exp: Math.floor(Date.now() / 1000) + 3600,
  ext: { user: { authenticationMode: 'm365', email: 'megan@contoso.test', name: 'Megan Bowen' } },
});

resetScreenBetweenTests('magic');
beforeEach(() => nav.redirectTo.mockReset());

function signInWithM365() {
  write(registry.oauth2Token, {
    accessToken: M365_TOKEN,
    refreshToken: null,
    expiresAt: Date.now() + 3_600_000,
  });
}

function backend() {
  return mockFetch(({ method, url }) => {
    if (url.pathname === '/sessions/whoami') return { status: 401, body: {} };
    if (method === 'POST' && url.pathname === '/m365/device/login')
      return { status: 200, body: { redirectTo: 'http://issuer/login-accepted' } };
    if (url.pathname === '/login/device/consent') {
      return {
        status: 200,
        body: {
          clientId: 'research-cli',
          clientName: 'Research CLI',
          requestedScope: ['openid', 'offline_access'],
          authenticationMode: 'm365',
        },
      };
    }
    if (method === 'POST' && url.pathname === '/m365/device/consent')
      return { status: 200, body: { redirectTo: 'http://issuer/approved' } };
    return undefined;
  });
}

describe('device page, Microsoft 365', () => {
  it('a login request with an m365 sign-in: accepted with the m365 token, naming this application', async () => {
    signInWithM365();
    const { calls, fn } = backend();
    goTo('/account/device?login_challenge=l-1');
    render(<Router />);
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://issuer/login-accepted'));
    const posted = calls.find((c) => c.url.pathname === '/m365/device/login')!;
    expect(posted.body).toEqual({ loginChallenge: 'l-1', application: 'magic' });
    const [, init] = fn.mock.calls.find(([input]) => String(input).includes('/m365/device/login'))!;
    expect(new Headers(init?.headers).get('authorization')).toBe(`Bearer ${M365_TOKEN}`);
  });

  it('a login request without an m365 sign-in: the login page, which will come back with it', async () => {
    const { calls } = backend();
    goTo('/account/device?login_challenge=l-2');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
    expect(read(registry.deviceLoginChallenge)).toBe('l-2');
    expect(calls.some((c) => c.url.pathname === '/m365/device/login')).toBe(false);
  });

  it('an m365 consent: Approve sends it with the m365 token, not an identity session', async () => {
    signInWithM365();
    const { calls } = backend();
    goTo('/account/device?consent_challenge=dc-1');
    render(<Router />);
    expect(await screen.findByText('Research CLI asks to sign in as you with this access:')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://issuer/approved'));
    expect(calls.find((c) => c.url.pathname === '/m365/device/consent')!.body).toEqual({
      consentChallenge: 'dc-1',
    });
    expect(calls.some((c) => c.url.pathname === '/login/consent')).toBe(false);
  });
});
