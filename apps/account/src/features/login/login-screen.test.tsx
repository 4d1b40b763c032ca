// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toastStore } from '../../shared/errors/error-store.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow, kratosSession, passkeyChallengeNode } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { LoginScreen } from './login-screen.tsx';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), replaceLocation: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  replaceLocation: nav.replaceLocation,
}));

const INVALID =
  'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';

const loginFlow = (id: string, messages: unknown[] = []) =>
  browserFlow('login', id, 'choose_method', [], messages);

// The browser's WebAuthn prompt (a third party).
const webauthn = vi.hoisted(() => ({ startAuthentication: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => webauthn);

resetScreenBetweenTests();
beforeEach(() => {
  window.history.replaceState(null, '', '/account/login');
  nav.redirectTo.mockReset();
  nav.replaceLocation.mockReset();
});

describe('LoginScreen', () => {
  it('stores a login_challenge parameter and reloads without it', async () => {
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    window.history.replaceState(null, '', '/account/login?login_challenge=ch-1');
    render(<LoginScreen search={{ login_challenge: 'ch-1' }} />);
    await waitFor(() => expect(nav.replaceLocation).toHaveBeenCalledWith('/account/login'));
    expect(read(registry.loginChallenge)).toBe('ch-1');
  });

  it("shows an authorization answer's error and description as 'OAuth2 error {code}. {description}' with Back to Login, and does not authorize again", async () => {
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    window.history.replaceState(
      null,
      '',
      '/account/login?error=access_denied&error_description=The+user+denied',
    );
    render(<LoginScreen search={{ error: 'access_denied', error_description: 'The user denied' }} />);
    expect(await screen.findByText('OAuth2 error access_denied. The user denied')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href')).toBe('/account/login');
    await new Promise((r) => setTimeout(r, 50));
    expect(nav.redirectTo).not.toHaveBeenCalled();
  });

  it('post_logout clears the old sign-in (token included) and reloads login without the parameter', async () => {
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    write(registry.oauth2Token, { accessToken: 'a.b.c', refreshToken: null, expiresAt: null });
    write(registry.loginChallenge, 'old');
    window.history.replaceState(null, '', '/account/login?post_logout=1');
    render(<LoginScreen search={{ post_logout: '1' }} />);
    await waitFor(() => expect(nav.replaceLocation).toHaveBeenCalledWith('/account/login'));
    expect(read(registry.oauth2Token)).toBeNull();
    expect(read(registry.loginChallenge)).toBeNull();
    expect(read(registry.logoutState)).toBe('completed');
  });

  it('a consent_challenge goes to the consent screen; an authorization code to the callback', async () => {
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    window.history.replaceState(null, '', '/account/login?consent_challenge=cc1');
    const { unmount } = render(<LoginScreen search={{ consent_challenge: 'cc1' }} />);
    await waitFor(() =>
      expect(window.location.pathname + window.location.search).toBe(
        '/account/consent?consent_challenge=cc1',
      ),
    );
    unmount();
    window.history.replaceState(null, '', '/account/login?code=ory_ac_1&state=s1');
    render(<LoginScreen search={{ code: 'ory_ac_1' }} />);
    await waitFor(() =>
      expect(window.location.pathname + window.location.search).toBe(
        '/account/callback?code=ory_ac_1&state=s1',
      ),
    );
  });

  it('without token or challenge, redirects to the authorize URL with PKCE', async () => {
    mockFetch(() => ({ status: 401, body: { error: { code: 401 } } }));
    render(<LoginScreen search={{}} />);
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalled());
    const url = new URL(nav.redirectTo.mock.calls[0]![0] as string);
    expect(url.pathname).toBe('/oauth2/auth');
    expect(url.searchParams.get('client_id')).toBe('platform');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBe(read(registry.authorizationParams)?.state);
    expect(read(registry.application)).toBe('platform');
  });

  it('email → password → wrong password error → 422 redirect', async () => {
    write(registry.loginChallenge, 'ch-1');
    let attempts = 0;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 401, body: { error: { code: 401 } } };
      if (url.pathname === '/login/config') {
        return { status: 200, body: { email: 'ada@acme.test', sso: false, provider: null, m365: false } };
      }
      if (url.pathname === '/self-service/login/browser') return { status: 200, body: loginFlow('flow-1') };
      if (method === 'POST' && url.pathname === '/self-service/login') {
        attempts++;
        if (attempts === 1) {
          return { status: 400, body: loginFlow('flow-1', [{ id: 4000006, type: 'error', text: INVALID }]) };
        }
        return {
          status: 422,
          body: {
            error: { id: 'browser_location_change_required' },
            redirect_browser_to: 'http://localhost:4444/oauth2/auth/x',
          },
        };
      }
      return undefined;
    });
    render(<LoginScreen search={{}} />);

    const email = await screen.findByLabelText('Email');
    fireEvent.change(email, { target: { value: 'ada@acme.test' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));

    const password = await screen.findByLabelText('Password');
    expect(screen.getByRole('heading', { name: 'Enter password' })).toBeTruthy();
    expect(read(registry.emailResult)).toEqual({
      email: 'ada@acme.test',
      isSSO: false,
      isM365: false,
      provider: null,
      hasMagic: false,
      selfSignUp: false,
    });
    fireEvent.change(password, { target: { value: 'wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain(INVALID);
    // A server message of type error is also a toast (60 s, "Action could not be completed").
    const [toast] = toastStore.getSnapshot();
    expect(toast?.message).toBe(`Error with login flow: ${INVALID}`);
    expect(toast!.expiresAt - Date.now()).toBeGreaterThan(59_000);

    const create = calls.find((c) => c.url.pathname === '/self-service/login/browser')!;
    expect(create.url.searchParams.get('login_challenge')).toBe('ch-1');
    expect(create.credentials).toBe('include');
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toEqual({
      method: 'password',
      identifier: 'ada@acme.test',
      password: 'wrong',
      csrf_token: 'csrf-1',
    });

    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'right' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth/x'));
  });

  it('an expired login flow is replaced by a fresh one, and the typed password goes to it without retyping', async () => {
    write(registry.loginChallenge, 'ch-1');
    write(registry.emailResult, { email: 'ada@acme.test', isSSO: false, isM365: false, provider: null });
    let created = 0;
    const { calls } = mockFetch(async ({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 401, body: { error: { code: 401 } } };
      if (url.pathname === '/self-service/login/browser') {
        created++;
        const flow = loginFlow(`flow-${created}`);
        // The fresh flow takes a while, as over a network: the page renders in between.
        if (created > 1) await new Promise((r) => setTimeout(r, 30));
        return { status: 200, body: flow };
      }
      if (method === 'POST' && url.pathname === '/self-service/login') {
        if (url.searchParams.get('flow') === 'flow-1') {
          return { status: 410, body: { error: { id: 'self_service_flow_expired', code: 410 } } };
        }
        return {
          status: 422,
          body: {
            error: { id: 'browser_location_change_required' },
            redirect_browser_to: 'http://localhost:4444/oauth2/auth/x',
          },
        };
      }
      return undefined;
    });
    render(<LoginScreen search={{}} />);
    fireEvent.change(await screen.findByLabelText('Password'), { target: { value: 'typed-once' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth/x'));
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => c.url.searchParams.get('flow'))).toEqual(['flow-1', 'flow-2']);
    expect(posts[1]?.body).toMatchObject({ identifier: 'ada@acme.test', password: 'typed-once' });
    // Exactly one fresh flow: a second creation would set a second anti-CSRF cookie in a browser that
    // has none, and the flow the page then submits could be bound to the other one (403).
    await new Promise((r) => setTimeout(r, 50));
    expect(created).toBe(2);
    expect(toastStore.getSnapshot()).toEqual([]);
  });

  it('the back arrow returns to the email step with the email kept', async () => {
    write(registry.loginChallenge, 'ch-1');
    write(registry.emailResult, { email: 'ada@acme.test', isSSO: false, isM365: false, provider: null });
    mockFetch(({ url }) =>
      url.pathname === '/self-service/login/browser'
        ? { status: 200, body: loginFlow('flow-1') }
        : { status: 401, body: { error: { code: 401 } } },
    );
    render(<LoginScreen search={{}} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Back to email' }));
    expect(((await screen.findByLabelText('Email')) as HTMLInputElement).value).toBe('ada@acme.test');
    expect(read(registry.emailResult)).toBeNull();
  });

  it('a failing login-config call toasts "Error verifying email address"', async () => {
    write(registry.loginChallenge, 'ch-1');
    mockFetch(({ url }) => {
      if (url.pathname === '/login/config')
        return { status: 429, body: { errorCode: 'RATE_LIMITED', message: 'Too many requests' } };
      // The stored challenge is valid: the page stays, and the address is looked up.
      if (url.pathname === '/self-service/login/browser') return { status: 200, body: loginFlow('flow-1') };
      return { status: 401, body: {} };
    });
    const { ToastRegion } = await import('../../shared/ui/toast-region.tsx');
    render(
      <>
        <LoginScreen search={{}} />
        <ToastRegion />
      </>,
    );
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('Error verifying email address: Too many requests')).toBeTruthy();
    expect(screen.getByText('Action could not be completed')).toBeTruthy();
  });

  it('a session error shows the error page with Retry', async () => {
    mockFetch(() => ({ status: 500, body: { error: { code: 500, message: 'database down' } } }));
    render(<LoginScreen search={{}} />);
    expect(await screen.findByText('Error loading session: database down')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('MFA required: "Enter your 2FA code" posts to an aal2 flow, shows a wrong code, follows the 422', async () => {
    write(registry.loginChallenge, 'ch-1');
    write(registry.emailResult, { email: 'ada@acme.test', isSSO: false, isM365: false, provider: null });
    let tries = 0;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') {
        return { status: 403, body: { error: { id: 'session_aal2_required', code: 403 } } };
      }
      if (url.pathname === '/self-service/login/browser')
        return { status: 200, body: { ...loginFlow('flow-2'), requested_aal: 'aal2' } };
      if (method === 'POST') {
        tries++;
        return tries === 1
          ? {
              status: 400,
              body: {
                ...loginFlow('flow-2', [
                  {
                    id: 4000008,
                    type: 'error',
                    text: 'The provided authentication code is invalid, please try again.',
                  },
                ]),
                requested_aal: 'aal2',
              },
            }
          : { status: 422, body: { redirect_browser_to: 'http://localhost:4444/oauth2/auth/y' } };
      }
      return undefined;
    });
    render(<LoginScreen search={{}} />);
    expect(await screen.findByRole('heading', { name: 'Enter your 2FA code' })).toBeTruthy();
    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '000000' } });
    expect((await screen.findByRole('alert')).textContent).toContain(
      'The provided authentication code is invalid',
    );
    const create = calls.find((c) => c.url.pathname === '/self-service/login/browser')!;
    expect(create.url.searchParams.get('aal')).toBe('aal2');
    expect(create.url.searchParams.get('login_challenge')).toBe('ch-1');
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      method: 'totp',
      totp_code: '000000',
      csrf_token: 'csrf-1',
    });
    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '123456' } });
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth/y'));
  });

  it('a refresh flow (1010003) shows "Password confirmation" for the session\'s email', async () => {
    write(registry.loginChallenge, 'ch-1');
    const refreshFlow = {
      ...loginFlow('flow-3', [
        { id: 1010003, type: 'info', text: 'Please confirm this action by verifying that it is you.' },
      ]),
      requested_aal: 'aal1',
      refresh: true,
    };
    mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') {
        return {
          status: 200,
          body: kratosSession(),
        };
      }
      if (url.pathname === '/self-service/login/browser') return { status: 200, body: refreshFlow };
      return undefined;
    });
    render(<LoginScreen search={{}} />);
    expect(await screen.findByRole('heading', { name: 'Password confirmation' })).toBeTruthy();
    expect(screen.getByText('ada@acme.test')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Back to email' })).toBeNull();
    // No passkey challenge in the refresh flow (the person has none): no passkey offered.
    expect(screen.queryByRole('button', { name: 'Use a passkey instead' })).toBeNull();
  });

  it('Password confirmation of a person with a passkey offers it: the answer goes to the refresh flow', async () => {
    write(registry.loginChallenge, 'ch-1');
    const options = { challenge: 'c1', allowCredentials: [{ id: 'k1', type: 'public-key' }] };
    const challenge = passkeyChallengeNode(options);
    const withPasskey = {
      ...browserFlow(
        'login',
        'flow-4',
        'choose_method',
        [challenge],
        [{ id: 1010003, type: 'info', text: 'Please confirm this action by verifying that it is you.' }],
      ),
      requested_aal: 'aal1',
      refresh: true,
    };
    const answer = { id: 'k1', rawId: 'k1', type: 'public-key', response: {} };
    webauthn.startAuthentication.mockResolvedValue(answer);
    vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {});
    const back = 'http://localhost:3000/account/settings';
    const { calls } = mockFetch(({ url, method }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (url.pathname === '/self-service/login/browser') return { status: 200, body: withPasskey };
      if (url.pathname === '/self-service/login' && method === 'POST')
        return {
          status: 200,
          body: {
            session: kratosSession(),
            continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: back }],
          },
        };
      return undefined;
    });
    render(<LoginScreen search={{}} />);
    expect(await screen.findByRole('heading', { name: 'Password confirmation' })).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Use a passkey instead' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith(back));
    expect(webauthn.startAuthentication).toHaveBeenCalledWith({
      optionsJSON: options,
      useBrowserAutofill: false,
    });
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url.searchParams.get('flow')).toBe('flow-4');
    expect(post.body).toMatchObject({ method: 'passkey', passkey_login: JSON.stringify(answer) });
    vi.unstubAllGlobals();
  });

  it('a stale challenge (4xx creating the flow) restarts the authorization before the user types', async () => {
    write(registry.loginChallenge, 'stale');
    mockFetch(({ url }) =>
      url.pathname === '/self-service/login/browser'
        ? { status: 404, body: { error: { code: 404, message: 'login challenge not found' } } }
        : { status: 401, body: {} },
    );
    render(<LoginScreen search={{}} />);
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalled());
    expect(new URL(nav.redirectTo.mock.calls[0]![0] as string).pathname).toBe('/oauth2/auth');
    expect(read(registry.loginChallenge)).toBeNull();
  });

  // The page checks a stored challenge with the flow it creates; until that answers it may still
  // leave for the authorization server. An address continued in that window was looked up on a page
  // about to go, and the page the authorization server sent back showed an empty Email step.
  describe('an address continued while the stored challenge is being checked', () => {
    const ADA = { email: 'ada@acme.test', sso: false, provider: null, m365: false };

    /** The flow creation answers when `answer` is called (as over a slow network). */
    function slowFlow(status: number) {
      let answer = () => undefined as void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const { calls } = mockFetch(async ({ url }) => {
        if (url.pathname === '/login/config') return { status: 200, body: ADA };
        if (url.pathname === '/self-service/login/browser') {
          await answered;
          return status === 200
            ? { status, body: loginFlow('flow-1') }
            : { status, body: { error: { code: status, message: 'login challenge not found' } } };
        }
        return { status: 401, body: { error: { code: 401 } } };
      });
      return { calls, answer, lookups: () => calls.filter((c) => c.url.pathname === '/login/config') };
    }

    async function continueWith(address: string) {
      fireEvent.change(await screen.findByLabelText('Email'), { target: { value: address } });
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Continue' }).hasAttribute('disabled')).toBe(false),
      );
      fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    }

    it('waits for the check (Continue busy), then goes on to the Password step without a second click', async () => {
      write(registry.loginChallenge, 'ch-1');
      const flow = slowFlow(200);
      render(<LoginScreen search={{}} />);
      await continueWith('ada@acme.test');
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Continue' }).hasAttribute('disabled')).toBe(true),
      );
      expect(flow.lookups()).toHaveLength(0);
      flow.answer();
      expect(await screen.findByLabelText('Password')).toBeTruthy();
      expect(screen.getByText('ada@acme.test')).toBeTruthy();
      expect(flow.lookups()).toHaveLength(1);
      expect(read(registry.pendingEmail)).toBeNull();
    });

    it('a stale challenge restarts the authorization with the address kept for the page that comes back', async () => {
      write(registry.loginChallenge, 'stale');
      const flow = slowFlow(404);
      render(<LoginScreen search={{}} />);
      await continueWith('ada@acme.test');
      flow.answer();
      await waitFor(() => expect(nav.redirectTo).toHaveBeenCalled());
      expect(new URL(nav.redirectTo.mock.calls[0]![0] as string).pathname).toBe('/oauth2/auth');
      expect(flow.lookups()).toHaveLength(0);
      expect(read(registry.pendingEmail)?.email).toBe('ada@acme.test');
    });

    it('the page the authorization server sends back goes on with the kept address by itself', async () => {
      write(registry.loginChallenge, 'fresh');
      write(registry.pendingEmail, { email: 'ada@acme.test', expiresAt: Date.now() + 60_000 });
      const flow = slowFlow(200);
      render(<LoginScreen search={{}} />);
      await new Promise((r) => setTimeout(r, 20));
      expect(flow.lookups()).toHaveLength(0);
      flow.answer();
      expect(await screen.findByLabelText('Password')).toBeTruthy();
      expect(screen.getByText('ada@acme.test')).toBeTruthy();
      expect(read(registry.pendingEmail)).toBeNull();
    });

    it('a kept address older than a login challenge is dropped, not continued', async () => {
      write(registry.loginChallenge, 'fresh');
      write(registry.pendingEmail, { email: 'ada@acme.test', expiresAt: Date.now() - 1 });
      const flow = slowFlow(200);
      flow.answer();
      render(<LoginScreen search={{}} />);
      await waitFor(() => expect(read(registry.pendingEmail)).toBeNull());
      await new Promise((r) => setTimeout(r, 20));
      expect(flow.lookups()).toHaveLength(0);
      expect(screen.getByRole('heading', { name: 'Welcome' })).toBeTruthy();
    });
  });

  it('an unreachable identity service does not restart the authorization (no redirect loop)', async () => {
    write(registry.loginChallenge, 'ch-1');
    mockFetch(({ url }) =>
      url.pathname === '/self-service/login/browser'
        ? { status: 503, body: { error: { code: 503, message: 'unavailable' } } }
        : { status: 401, body: {} },
    );
    render(<LoginScreen search={{}} />);
    expect(await screen.findByLabelText('Email')).toBeTruthy();
    await new Promise((r) => setTimeout(r, 50));
    expect(nav.redirectTo).not.toHaveBeenCalled();
    expect(read(registry.loginChallenge)).toBe('ch-1');
  });
});
