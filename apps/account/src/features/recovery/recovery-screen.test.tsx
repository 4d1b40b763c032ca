// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
}));

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
  goTo('/account/forgot-password');
});

const recovery = (state: string, messages: unknown[] = []) =>
  browserFlow('recovery', 'r-1', state, [], messages);

describe('forgot-password', () => {
  it('Email → Code (wrong, then right) → Password → login', async () => {
    let codeTries = 0;
    const { calls } = mockFetch(({ method, url, body }) => {
      if (url.pathname === '/self-service/recovery/browser')
        return { status: 200, body: recovery('choose_method') };
      if (url.pathname === '/self-service/recovery/flows')
        return { status: 200, body: recovery('choose_method') };
      if (method === 'POST' && url.pathname === '/self-service/recovery') {
        const b = body as { email?: string; code?: string };
        if (b.email)
          return { status: 200, body: recovery('sent_email', [{ id: 1060003, type: 'info', text: 'sent' }]) };
        codeTries++;
        if (codeTries === 1) {
          return {
            status: 200,
            body: recovery('sent_email', [
              {
                id: 4060006,
                type: 'error',
                text: 'The recovery code is invalid or has already been used. Please try again.',
              },
            ]),
          };
        }
        return {
          status: 422,
          body: {
            error: { id: 'browser_location_change_required' },
            redirect_browser_to: 'http://localhost:4000/account/profile?flow=s-1',
          },
        };
      }
      if (url.pathname === '/self-service/settings/flows') {
        return {
          status: 200,
          body: browserFlow('settings', 's-1', 'show_form'),
        };
      }
      if (method === 'POST' && url.pathname === '/self-service/settings') {
        return {
          status: 200,
          body: browserFlow('settings', 's-1', 'success'),
        };
      }
      if (url.pathname === '/self-service/logout/browser') {
        return {
          status: 200,
          body: { logout_url: 'http://localhost:4433/self-service/logout?token=ory_lo_1' },
        };
      }
      if (url.pathname === '/sessions/whoami') return { status: 401, body: {} };
      return undefined;
    });
    render(<Router />);

    expect(await screen.findByRole('heading', { name: 'Forgot password' })).toBeTruthy();
    await waitFor(() => expect(window.location.search).toBe('?flow=r-1'));
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));

    expect(await screen.findByRole('heading', { name: 'Verify your email' })).toBeTruthy();
    expect(read(registry.resetPasswordState)).toEqual({
      inProgress: true,
      completed: false,
      email: 'ada@acme.test',
    });
    const code = screen.getByLabelText('Code');
    expect(code.getAttribute('placeholder')).toBe('000000');
    fireEvent.change(code, { target: { value: '111111' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The recovery code is invalid');

    fireEvent.change(screen.getByLabelText('Code'), { target: { value: '222222' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('heading', { name: 'Change your password' })).toBeTruthy();
    expect(window.location.search).toBe('?profileFlow=s-1');
    const codePost = calls
      .filter((c) => c.method === 'POST' && c.url.pathname === '/self-service/recovery')
      .at(-1)!;
    expect(codePost.body).toEqual({ method: 'code', code: '222222', csrf_token: 'csrf-1' });

    fireEvent.change(screen.getByLabelText('New password', { exact: true }), {
      target: { value: 'N3w-password!' },
    });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'N3w-password!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    // The recovery session ends, then login: a fresh sign-in with the new password.
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4433/self-service/logout?token=ory_lo_1'),
    );
    const logout = calls.find((c) => c.url.pathname === '/self-service/logout/browser')!;
    expect(logout.url.searchParams.get('return_to')).toBe('http://localhost:3000/account/login');
    expect(read(registry.resetPasswordState)).toBeNull();
    const passwordPost = calls.find(
      (c) => c.method === 'POST' && c.url.pathname === '/self-service/settings',
    )!;
    expect(passwordPost.body).toEqual({
      method: 'password',
      password: 'N3w-password!',
      csrf_token: 'csrf-1',
    });
  });

  it("shows the identity service's SSO-enforced refusal on the email form, and stays on it", async () => {
    const text =
      "Your organisation requires single sign-on (SSO). Sign in through your organisation's identity provider: a password can not be used or reset for this address.";
    mockFetch(({ method, url }) => {
      if (
        url.pathname === '/self-service/recovery/browser' ||
        url.pathname === '/self-service/recovery/flows'
      )
        return { status: 200, body: recovery('choose_method') };
      if (method === 'POST' && url.pathname === '/self-service/recovery')
        return { status: 400, body: recovery('choose_method', [{ id: 4010090, type: 'error', text }]) };
      return { status: 401, body: {} };
    });
    render(<Router />);
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'member@globex.test' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain('single sign-on (SSO)');
    expect(screen.getByRole('heading', { name: 'Forgot password' })).toBeTruthy();
  });

  it('checks the email with the browser validity check before sending it', async () => {
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/self-service/recovery/browser'
        ? { status: 200, body: recovery('choose_method') }
        : { status: 401, body: {} },
    );
    render(<Router />);
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'not-an-email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('Enter a valid email address.')).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    expect(screen.queryByText('Enter a valid email address.')).toBeNull();
  });

  it('an existing session makes recovery impossible, with links to the platform and logout', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/self-service/recovery/browser'
        ? { status: 400, body: { error: { id: 'session_already_available', code: 400 } } }
        : { status: 401, body: {} },
    );
    render(<Router />);
    expect(
      await screen.findByText('You are already signed in, so your password cannot be recovered here.'),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to the platform' }).getAttribute('href')).toBe('/research');
    expect(screen.getByRole('link', { name: 'Log out' }).getAttribute('href')).toBe('/account/logout');
  });

  it('a user with 2FA: after the code, "Enter your 2FA code" (aal2 login flow), then the new password', async () => {
    let secondFactorGiven = false;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/self-service/settings/flows') {
        if (!secondFactorGiven) {
          return {
            status: 403,
            body: {
              error: { id: 'session_aal2_required', code: 403 },
              redirect_browser_to: 'http://localhost:4433/self-service/login/browser?aal=aal2',
            },
          };
        }
        return { status: 200, body: browserFlow('settings', 's-1', 'show_form') };
      }
      if (url.pathname === '/self-service/login/browser')
        return {
          status: 200,
          body: { ...browserFlow('login', 'l-2', 'choose_method'), requested_aal: 'aal2' },
        };
      if (method === 'POST' && url.pathname === '/self-service/login') {
        secondFactorGiven = true;
        return { status: 200, body: { session: { id: 'sess' } } };
      }
      return { status: 401, body: {} };
    });
    goTo('/account/forgot-password?profileFlow=s-1');
    render(<Router />);

    expect(await screen.findByRole('heading', { name: 'Enter your 2FA code' })).toBeTruthy();
    expect(nav.redirectTo).not.toHaveBeenCalled();
    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '123456' } });

    expect(await screen.findByRole('heading', { name: 'Change your password' })).toBeTruthy();
    const create = calls.find((c) => c.url.pathname === '/self-service/login/browser')!;
    expect(create.url.searchParams.get('aal')).toBe('aal2');
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({
      method: 'totp',
      totp_code: '123456',
    });
    expect(
      screen.queryByText('You are already signed in, so your password cannot be recovered here.'),
    ).toBeNull();
  });
});
