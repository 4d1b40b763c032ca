// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { toastStore } from '../../shared/errors/error-store.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { fakeJwt, kratosSession, TERMS } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), replaceLocation: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  replaceLocation: nav.replaceLocation,
}));

const NOW = Date.now();
const ACCESS = fakeJwt({
  exp: NOW / 1000 + 3600,
  ext: { user: { authenticationMode: 'ory' }, products: [] },
});

interface Onboarding {
  tosAccepted: boolean;
  isGitUser: boolean;
  gitProviderConnected: boolean;
}
function session(onboarding: Onboarding, methods = ['password']) {
  return kratosSession({ methods, onboarding });
}
/** whoami of a git user who accepted the terms but has not linked the source-code host yet. */
const linkPending = {
  status: 200,
  body: session({ tosAccepted: true, isGitUser: true, gitProviderConnected: false }),
};

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
  for (const t of toastStore.getSnapshot()) toastStore.dismiss(t.id);
});

function withToken() {
  write(registry.oauth2Token, { accessToken: ACCESS, refreshToken: null, expiresAt: NOW + 3_600_000 });
}

describe('callback onboarding stepper', () => {
  it('Final Step: two checkboxes, Continue only when both are ticked, footer links; accepting lands on /research', async () => {
    withToken();
    let onboarding: Onboarding = { tosAccepted: false, isGitUser: false, gitProviderConnected: false };
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: session(onboarding) };
      if (url.pathname === '/terms/current') return { status: 200, body: TERMS };
      if (method === 'POST' && url.pathname === '/terms/accept') {
        onboarding = { ...onboarding, tosAccepted: true };
        return { status: 200, body: { tosAccepted: true } };
      }
      return undefined;
    });
    goTo('/account/callback');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Final Step' })).toBeTruthy();
    const terms = await screen.findByLabelText('I agree to the platform terms of service');
    const privacy = screen.getByLabelText('I agree to the privacy policy');
    const next = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(next.disabled).toBe(true);
    fireEvent.click(terms);
    expect(next.disabled).toBe(true);
    fireEvent.click(privacy);
    expect(next.disabled).toBe(false);
    expect(screen.getByRole('link', { name: 'Privacy Notice' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Contact support' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );
    expect(screen.getByRole('link', { name: 'terms of service' }).getAttribute('href')).toBe(TERMS.terms.url);
    // The first-login flag: written by this onboarding callback, read once by the landing page.
    expect(read(registry.firstLogin)).toBe(true);
    fireEvent.click(next);
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    const accept = calls.find((c) => c.url.pathname === '/terms/accept')!;
    expect(accept.credentials).toBe('include');
    expect(accept.body).toEqual({
      documents: [
        { document: 'terms', version: '2026-01' },
        { document: 'privacy', version: '2026-01' },
      ],
    });
  });

  it('link step for a git user: "Signing up as" the email; Authenticate initialises and leaves for the host', async () => {
    withToken();
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') {
        return {
          status: 200,
          body: session({ tosAccepted: false, isGitUser: true, gitProviderConnected: false }),
        };
      }
      if (method === 'POST' && url.pathname === '/git-auth/initialise') {
        return {
          status: 200,
          body: { authenticationUrl: 'http://localhost:4500/github/login/oauth/authorize?x=1' },
        };
      }
      return undefined;
    });
    goTo('/account/callback');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Link your GitHub account' })).toBeTruthy();
    expect(screen.getByText('Signing up as')).toBeTruthy();
    expect(screen.getByText('ada@acme.test')).toBeTruthy();
    // The indicator shows the steps still due: the link, then the terms.
    const steps = screen.getByRole('list', { name: 'Onboarding steps' });
    expect(steps.textContent).toBe('Link to GitHubTerms of Service');
    fireEvent.click(screen.getByRole('button', { name: 'Authenticate with GitHub' }));
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4500/github/login/oauth/authorize?x=1'),
    );
    const init = calls.find((c) => c.url.pathname === '/git-auth/initialise')!;
    expect(init.credentials).toBe('include');
    expect(init.body).toEqual({ flow: 'sess-1' });
  });

  it('the link step is left out when the configuration disables it', async () => {
    setConfig({ ...defaultConfig('platform'), disableGitStep: true });
    withToken();
    mockFetch(({ url }) => (url.pathname === '/sessions/whoami' ? linkPending : undefined));
    goTo('/account/callback');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
  });

  it('a source-code-host code (not "ory…") is completed with the user service, then the initial page', async () => {
    withToken();
    let connected = false;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') {
        return {
          status: 200,
          body: session({ tosAccepted: true, isGitUser: true, gitProviderConnected: connected }),
        };
      }
      if (method === 'POST' && url.pathname === '/git-auth/complete') {
        connected = true;
        return { status: 200, body: { connected: true, login: 'octo-dev' } };
      }
      return undefined;
    });
    goTo('/account/callback?code=gh-code-1&state=host-state');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    const complete = calls.find((c) => c.url.pathname === '/git-auth/complete')!;
    expect(complete.credentials).toBe('include');
    expect(complete.body).toEqual({ code: 'gh-code-1', state: 'host-state' });
    expect(calls.some((c) => c.url.pathname === '/oauth2/token')).toBe(false);
  });

  it('a failed completion shows the message and the link step starts over', async () => {
    withToken();
    mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return linkPending;
      if (method === 'POST' && url.pathname === '/git-auth/complete') {
        return { status: 400, body: { errorCode: 'INVALID_STATE', message: 'It expired. Start again.' } };
      }
      return undefined;
    });
    goTo('/account/callback?code=gh-code-1&state=stale');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Link your GitHub account' })).toBeTruthy();
    expect(window.location.search).toBe('');
    expect(toastStore.getSnapshot().map((t) => t.message)).toContain('It expired. Start again.');
  });

  it('a failed initialisation shows the message and keeps the link step', async () => {
    withToken();
    mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return linkPending;
      if (method === 'POST' && url.pathname === '/git-auth/initialise') {
        return { status: 502, body: { errorCode: 'UPSTREAM_ERROR', message: 'The host is unreachable.' } };
      }
      return undefined;
    });
    goTo('/account/callback');
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Authenticate with GitHub' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.message)).toContain('The host is unreachable.'),
    );
    expect(nav.redirectTo).not.toHaveBeenCalled();
    expect(
      (screen.getByRole('button', { name: 'Authenticate with GitHub' }) as HTMLButtonElement).disabled,
    ).toBe(false);
  });

  it('an aal1 user without a second factor past the deadline goes back to login for a 2FA reset', async () => {
    write(registry.authorizationParams, {
      codeVerifier: 'v'.repeat(43),
      state: 'state-1234',
      expiration: NOW + 60_000,
    });
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') {
        const s = session({ tosAccepted: true, isGitUser: false, gitProviderConnected: false });
        s.identity.traits.onboarding.mfaSetupDeadline = '2000-01-01T00:00:00Z';
        return { status: 200, body: s };
      }
      return undefined;
    });
    goTo('/account/callback?code=ory_ac_1&state=state-1234');
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
    expect(calls.some((c) => c.url.pathname === '/oauth2/token')).toBe(false);
  });
});
