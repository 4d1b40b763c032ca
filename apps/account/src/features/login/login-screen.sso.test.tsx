// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { LoginScreen } from './login-screen.tsx';

// The SSO step's way out (issue 21): "Use another email" and "Try again" after a redirect loop.

const SSO_RESULT = { email: 'hopper@globex.test', isSSO: true, isM365: false, provider: 'globex' };

// The identity service's answer to the SSO choice: on to the provider.
const TO_PROVIDER = {
  status: 422,
  body: {
    error: { id: 'browser_location_change_required', code: 422 },
    redirect_browser_to: 'http://localhost:4520/auth?client_id=x',
  },
};

/** Records top-level navigations (`location.href = …`) instead of making them. */
function watchNavigation() {
  const assign = vi.fn();
  vi.stubGlobal('location', {
    ...window.location,
    set href(to: string) {
      assign(to);
    },
  });
  return assign;
}

resetScreenBetweenTests();
beforeEach(() => {
  window.history.replaceState(null, '', '/account/login');
  write(registry.loginChallenge, 'ch-1');
  write(registry.emailResult, SSO_RESULT);
  write(registry.ssoRedirectLock, { id: 'lock-1', expiresAt: Date.now() + 60_000 });
  write(registry.ssoRedirects, 6);
  mockFetch(({ url }) =>
    url.pathname === '/self-service/login/browser'
      ? { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', []) }
      : { status: 401, body: { error: { code: 401 } } },
  );
});

describe('LoginScreen: the SSO step has a way out', () => {
  it('"Use another email" after a loop clears the email result and the SSO lock and shows the Email step', async () => {
    render(<LoginScreen search={{}} />);
    expect((await screen.findByRole('alert')).textContent).toBe('Redirect loop detected.');
    fireEvent.click(screen.getByRole('button', { name: 'Use another email' }));
    expect(((await screen.findByLabelText('Email')) as HTMLInputElement).value).toBe('hopper@globex.test');
    expect(read(registry.emailResult)).toBeNull();
    expect(read(registry.ssoRedirectLock)).toBeNull();
  });

  it('"Use another email" on the Proceed view (lock held, no loop) leads back too', async () => {
    write(registry.ssoRedirects, 1);
    render(<LoginScreen search={{}} />);
    await screen.findByRole('button', { name: 'Proceed' });
    fireEvent.click(screen.getByRole('button', { name: 'Use another email' }));
    await screen.findByLabelText('Email');
    expect(read(registry.emailResult)).toBeNull();
    expect(read(registry.ssoRedirectLock)).toBeNull();
  });

  it('"Try again" clears the redirect count, counts the try and submits the SSO choice again', async () => {
    const { calls } = mockFetch(({ url, method }) => {
      if (url.pathname === '/self-service/login/browser')
        return { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', []) };
      if (method === 'POST' && url.pathname === '/self-service/login') return TO_PROVIDER;
      return { status: 401, body: { error: { code: 401 } } };
    });
    const assign = watchNavigation();
    render(<LoginScreen search={{}} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Try again' }));
    // The provider is reached by a top-level navigation, not a form post (CSP form-action lists no provider).
    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:4520/auth?client_id=x'));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toMatchObject({ method: 'oidc', provider: 'globex' });
    expect(post.credentials).toBe('include');
    // The count started again with this redirect; one of the three tries is used.
    expect(read(registry.ssoRedirects)).toBe(1);
    expect(read(registry.ssoTries)).toBe(1);
    vi.unstubAllGlobals();
  });

  it("a step submitted before the page's flow arrived waits for it: one flow, so no second anti-CSRF cookie races the first", async () => {
    let release: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (release = resolve));
    let created = 0;
    const { calls } = mockFetch(async ({ url, method }) => {
      if (url.pathname === '/self-service/login/browser') {
        created += 1;
        // The page's own flow is slow to come (a loaded instance).
        if (created === 1) await arrived;
        return { status: 200, body: browserFlow('login', `flow-${created}`, 'choose_method', []) };
      }
      if (method === 'POST' && url.pathname === '/self-service/login') return TO_PROVIDER;
      return { status: 401, body: { error: { code: 401 } } };
    });
    const assign = watchNavigation();
    render(<LoginScreen search={{}} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Try again' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
    release();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:4520/auth?client_id=x'));
    expect(created).toBe(1);
    expect(calls.find((c) => c.method === 'POST')!.url.searchParams.get('flow')).toBe('flow-1');
    vi.unstubAllGlobals();
  });

  it('after 3 tries only "Use another email" and the support contact remain', async () => {
    write(registry.ssoTries, 3);
    render(<LoginScreen search={{}} />);
    expect((await screen.findByRole('alert')).textContent).toBe('Redirect loop detected.');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(screen.getByRole('link', { name: 'support@acme.test' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Use another email' })).toBeTruthy();
  });

  it('"Sign in with a password (administrators)" shows the Password step for the same address; a refusal names SSO and the way back remains', async () => {
    write(registry.ssoRedirects, 1);
    const ENFORCED =
      "Your organisation requires single sign-on (SSO). Sign in through your organisation's identity provider: a password can not be used or reset for this address.";
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/self-service/login/browser') {
        return { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', []) };
      }
      if (method === 'POST' && url.pathname === '/self-service/login') {
        return {
          status: 400,
          body: browserFlow(
            'login',
            'flow-1',
            'choose_method',
            [],
            [{ id: 4010090, type: 'error', text: ENFORCED }],
          ),
        };
      }
      return { status: 401, body: { error: { code: 401 } } };
    });
    render(<LoginScreen search={{}} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in with a password (administrators)' }));
    const password = await screen.findByLabelText('Password');
    expect(screen.getByText('hopper@globex.test')).toBeTruthy();
    expect(read(registry.emailResult)).toEqual({ ...SSO_RESULT, passwordInstead: true });
    fireEvent.change(password, { target: { value: 'correct horse battery staple' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain(ENFORCED);
    const post = calls.find((c) => c.method === 'POST' && c.url.pathname === '/self-service/login');
    expect(post).toBeTruthy();
    // The way back: the Email step, without the SSO result.
    fireEvent.click(screen.getByRole('button', { name: 'Back to email' }));
    await screen.findByLabelText('Email');
    expect(read(registry.emailResult)).toBeNull();
  });
});
