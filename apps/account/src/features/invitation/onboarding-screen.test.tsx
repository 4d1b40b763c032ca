// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import type { MockCall } from '../../testing/fetch-mock.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow, kratosSession, TERMS, totpSetupNodes } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), replaceLocation: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  replaceLocation: nav.replaceLocation,
}));

const FUTURE = '2999-01-01T00:00:00Z';
const PAST = '2000-01-01T00:00:00Z';
const LINK = '/account/onboarding?flow=rec-1&code=123456';

function session(over: { tosAccepted?: boolean; deadline?: string; methods?: string[]; aal?: string } = {}) {
  return kratosSession({
    email: 'new@acme.test',
    aal: over.aal,
    methods: over.methods ?? ['code_recovery'],
    verified: false,
    onboarding: { tosAccepted: over.tosAccepted ?? false, mfaSetupDeadline: over.deadline ?? FUTURE },
  });
}
const recoveryFlow = {
  id: 'rec-1',
  type: 'browser',
  state: 'sent_email',
  ui: { action: 'x', method: 'POST', messages: [], nodes: [] },
};
const settingsFlow = (id: string, nodes: unknown[] = []) => browserFlow('settings', id, 'show_form', nodes);
const unauthorized = { status: 401, body: { error: { code: 401, message: 'no session' } } };

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
});

const posts = (calls: MockCall[], path: string) =>
  calls.filter((c) => c.method === 'POST' && c.url.pathname === path);

describe('invitation onboarding screen', () => {
  it('submits the code once (method code), then Password → 2FA (skippable) → Terms → session refresh → login', async () => {
    let current: ReturnType<typeof session> | null = null;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return current ? { status: 200, body: current } : unauthorized;
      if (url.pathname === '/invitations/status') return { status: 200, body: { state: 'pending' } };
      if (url.pathname === '/self-service/recovery/flows') return { status: 200, body: recoveryFlow };
      if (method === 'POST' && url.pathname === '/self-service/recovery') {
        current = session();
        return {
          status: 422,
          body: {
            error: { id: 'browser_location_change_required', code: 422 },
            redirect_browser_to: 'http://localhost:4000/account/profile?flow=set-1',
          },
        };
      }
      if (url.pathname === '/self-service/settings/flows')
        return { status: 200, body: settingsFlow('set-1') };
      if (url.pathname === '/self-service/settings/browser') {
        return { status: 200, body: settingsFlow('set-2', totpSetupNodes) };
      }
      if (method === 'POST' && url.pathname === '/self-service/settings') {
        return { status: 200, body: { ...settingsFlow('set-1'), state: 'success' } };
      }
      if (url.pathname === '/terms/current') return { status: 200, body: TERMS };
      if (method === 'POST' && url.pathname === '/terms/accept') {
        current = session({ tosAccepted: true });
        return { status: 200, body: { tosAccepted: true } };
      }
      return undefined;
    });
    goTo(LINK);
    render(<Router />);

    expect(await screen.findByRole('heading', { name: 'Set your password' })).toBeTruthy();
    expect(window.location.search).toBe('?profileFlow=set-1');
    const recovery = posts(calls, '/self-service/recovery');
    expect(recovery).toHaveLength(1);
    expect(recovery[0]!.body).toMatchObject({ method: 'code', code: '123456' });
    expect(recovery[0]!.url.searchParams.get('flow')).toBe('rec-1');
    expect(read(registry.onboardingState)).toEqual({
      codeSubmitted: true,
      passwordSet: false,
      isSessionRefreshRequired: false,
    });
    const steps = screen.getByRole('list', { name: 'Onboarding steps' });
    expect(steps.textContent).toBe('EmailPassword2FATerms');
    expect(screen.getByText('Password').getAttribute('aria-current')).toBe('step');

    fireEvent.change(screen.getByPlaceholderText('Create password'), { target: { value: 'Invited-2026!' } });
    fireEvent.change(screen.getByPlaceholderText('Re-enter password'), {
      target: { value: 'Invited-2026!' },
    });
    // The form takes a password once the settings flow has loaded (a click before then does nothing).
    const submit = screen.getByRole('button', { name: 'Continue' });
    await waitFor(() => expect((submit as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(submit);

    expect(await screen.findByRole('heading', { name: 'Set up 2FA' })).toBeTruthy();
    expect(posts(calls, '/self-service/settings')[0]!.body).toEqual({
      method: 'password',
      password: 'Invited-2026!',
      csrf_token: 'csrf-1',
    });
    expect(read(registry.onboardingState)?.passwordSet).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Skip for now' }));

    expect(await screen.findByRole('heading', { name: 'Accept the terms' })).toBeTruthy();
    const next = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    fireEvent.click(await screen.findByLabelText('I agree to the platform terms of service'));
    expect(next.disabled).toBe(true);
    fireEvent.click(screen.getByLabelText('I agree to the privacy policy'));
    fireEvent.click(next);

    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
    expect(posts(calls, '/terms/accept')[0]!.credentials).toBe('include');
    expect(read(registry.onboardingState)).toBeNull();
    // The session was fetched again after the terms (refresh required).
    const acceptAt = calls.findIndex((c) => c.url.pathname === '/terms/accept');
    expect(calls.slice(acceptAt).some((c) => c.url.pathname === '/sessions/whoami')).toBe(true);
  });

  it('2FA cannot be skipped once the setup deadline has passed', async () => {
    write(registry.onboardingState, {
      codeSubmitted: true,
      passwordSet: true,
      isSessionRefreshRequired: false,
    });
    mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: session({ deadline: PAST }) };
      if (url.pathname === '/self-service/settings/browser') {
        return { status: 200, body: settingsFlow('set-2', totpSetupNodes) };
      }
      return undefined;
    });
    goTo('/account/onboarding');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Set up 2FA' })).toBeTruthy();
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSWY3DPEHPK3PXP');
    expect(screen.queryByRole('button', { name: 'Skip for now' })).toBeNull();
  });

  it.each([
    ['revoked', { status: 200, body: { state: 'revoked' } }],
    ['expired', { status: 200, body: { state: 'expired' } }],
    ['unknown (404)', { status: 404, body: { errorCode: 'INVITATION_NOT_FOUND', message: 'x' } }],
  ])('a %s invitation shows "Link expired" and submits nothing', async (_name, status) => {
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') return unauthorized;
      if (url.pathname === '/invitations/status') return status;
      return undefined;
    });
    goTo(LINK);
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Link expired' })).toBeTruthy();
    expect(screen.getByText('Need a new invitation?')).toBeTruthy();
    expect(screen.getByText('Please contact access@acme.test to get a new invitation.')).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.startsWith('/self-service/recovery'))).toBe(false);
  });

  it.each([404, 410])('a recovery flow answering %i shows "Link expired"', async (code) => {
    mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') return unauthorized;
      if (url.pathname === '/invitations/status') return { status: 200, body: { state: 'pending' } };
      if (url.pathname === '/self-service/recovery/flows') return { status: code, body: { error: { code } } };
      return undefined;
    });
    goTo(LINK);
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Link expired' })).toBeTruthy();
  });

  it('a link without a code and no session shows "Link expired"', async () => {
    mockFetch(({ url }) => (url.pathname === '/sessions/whoami' ? unauthorized : undefined));
    goTo('/account/onboarding?flow=rec-1');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Link expired' })).toBeTruthy();
  });

  it('a signed-in user sees "You are already logged in as {email}" with the two links', async () => {
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/sessions/whoami'
        ? { status: 200, body: session({ tosAccepted: true, methods: ['password'] }) }
        : undefined,
    );
    goTo(LINK);
    render(<Router />);
    const heading = await screen.findByRole('heading', {
      name: 'You are already logged in as new@acme.test',
    });
    // The address may break at any character (a long one at 320 px), the words around it only between words.
    expect(heading.querySelector('.address')?.textContent).toBe('new@acme.test');
    expect(screen.getByRole('link', { name: 'here to proceed' }).getAttribute('href')).toBe('/research');
    expect(screen.getByRole('link', { name: 'here to logout' }).getAttribute('href')).toBe('/account/logout');
    expect(calls.some((c) => c.url.pathname.startsWith('/self-service/recovery'))).toBe(false);
  });

  it('does not submit while another tab holds the code lock', async () => {
    write(registry.onboardingCodeLock, { id: 'other-tab', expiresAt: Date.now() + 60_000 });
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') return unauthorized;
      if (url.pathname === '/invitations/status') return { status: 200, body: { state: 'pending' } };
      return undefined;
    });
    goTo(LINK);
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Verifying your invitation…' })).toBeTruthy();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.some((c) => c.url.pathname.startsWith('/self-service/recovery'))).toBe(false);
  });

  it('a session that cannot be loaded shows "Error loading session" with Retry', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/sessions/whoami' ? { status: 500, body: { error: { message: 'boom' } } } : undefined,
    );
    goTo(LINK);
    render(<Router />);
    expect(await screen.findByText('Error loading session: boom')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
