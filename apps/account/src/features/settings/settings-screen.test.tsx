// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { SSO_MANAGED_MESSAGE_ID } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import { mockFetch, type MockCall } from '../../testing/fetch-mock.ts';
import { browserFlow, fakeJwt, kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

const nav = vi.hoisted(() => ({ redirectTo: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
}));

const NOW = Date.now();
const token = (mode: string) =>
  fakeJwt({ exp: NOW / 1000 + 3600, ext: { user: { authenticationMode: mode }, products: ['Platform'] } });
const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

const input = (group: string, name: string, type = 'submit') => ({
  type: 'input',
  group,
  attributes: { name, type, node_type: 'input' },
  messages: [],
  meta: {},
});
const remaining = {
  type: 'text',
  group: 'lookup_secret',
  attributes: {
    id: 'lookup_secret_remaining',
    text: { id: 1050022, type: 'info', text: '9 of 12', context: { remaining: 9, total: 12 } },
    node_type: 'text',
  },
  messages: [],
  meta: {},
};
/** The password group the service offers (not to a member of an organisation that enforces SSO). */
const passwordNodes = [input('password', 'password', 'password'), input('password', 'method')];
const settingsFlow = (extra: object[] = [], password = passwordNodes) => ({
  ...browserFlow('settings', 'sf-1', 'show_form', [
    ...password,
    input('totp', 'totp_unlink'),
    remaining,
    input('lookup_secret', 'lookup_secret_regenerate'),
    ...extra,
  ]),
  identity: { id: 'i-1', traits: { email: 'ada@acme.test', name: { first: 'Ada', last: 'Lovelace' } } },
});
const me = { ...kratosSession(), devices: [{ id: 'd1', ip_address: '192.0.2.1', user_agent: CHROME_MAC }] };
const other = {
  id: 'sess-2',
  authenticated_at: '2026-11-01T08:00:00.000Z',
  devices: [
    {
      id: 'd2',
      ip_address: '198.51.100.7',
      user_agent: FIREFOX_LINUX,
      first_seen_at: '2026-11-01T08:00:00.000Z',
      last_active_at: '2026-11-20T08:00:00.000Z',
    },
  ],
};

// The browser's WebAuthn prompt (a third party): answers a made-up credential.
const webauthn = vi.hoisted(() => ({ startRegistration: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => webauthn);

resetScreenBetweenTests();
beforeEach(() => nav.redirectTo.mockReset());

function signIn(mode = 'ory') {
  write(registry.oauth2Token, { accessToken: token(mode), refreshToken: 'rt', expiresAt: NOW + 3_600_000 });
}

function identity(
  over: (call: MockCall) => { status: number; body?: unknown } | undefined = () => undefined,
) {
  let sessions: unknown[] = [other];
  return mockFetch((call) => {
    const answer = over(call);
    if (answer) return answer;
    const { url, method } = call;
    if (url.pathname === '/sessions/whoami') return { status: 200, body: me };
    if (url.pathname === '/self-service/settings/browser') return { status: 200, body: settingsFlow() };
    if (url.pathname === '/sessions' && method === 'GET') return { status: 200, body: sessions };
    if (url.pathname === '/sessions/sess-2' && method === 'DELETE') {
      sessions = [];
      return { status: 204 };
    }
    return undefined;
  });
}

describe('/account/settings', () => {
  it('starts its settings flow with return_to to itself and shows each section', async () => {
    signIn();
    const { calls } = identity();
    goTo('/account/settings');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Account settings' })).toBeTruthy();
    const create = calls.find((c) => c.url.pathname === '/self-service/settings/browser')!;
    expect(create.url.searchParams.get('return_to')).toBe(`${window.location.origin}/account/settings`);
    for (const name of ['Profile', 'Password', 'Two-factor authentication', 'Sessions', 'Linked accounts'])
      expect(screen.getByRole('heading', { name })).toBeTruthy();
    expect(screen.getByLabelText('First name')).toHaveProperty('value', 'Ada');
    expect(screen.getByText(/signs you out on every other device/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Change password' })).toBeTruthy();
    expect(screen.queryByTestId('settings-flow-notice')).toBeNull();
    expect(screen.getByTestId('totp-status').textContent).toBe('An authenticator app is set up.');
    expect(screen.getByTestId('backup-codes-left').textContent).toBe('9 of 12 backup codes left.');
    const current = await screen.findByTestId('session-current');
    expect(current.textContent).toContain('Chrome 131 · macOS');
    expect(current.textContent).toContain('This device');
    const others = screen.getByTestId('session-other');
    expect(others.textContent).toContain('Firefox 133 · Linux');
    expect(others.textContent).toContain('198.51.100.7');
  });

  it('signs out another session from the list', async () => {
    signIn();
    const { calls } = identity();
    goTo('/account/settings');
    render(<Router />);
    const others = await screen.findByTestId('session-other');
    fireEvent.click(within(others).getByRole('button', { name: /Sign out/ }));
    expect(await screen.findByText('The session was signed out.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/sessions/sess-2')).toBe(true);
    expect(screen.queryByTestId('session-other')).toBeNull();
  });

  it('shows new backup codes once, with copy and download, then confirms them', async () => {
    signIn();
    const codes = Array.from({ length: 12 }, (_, i) => `code${String(i).padStart(4, '0')}`);
    const made = settingsFlow([
      {
        type: 'text',
        group: 'lookup_secret',
        attributes: {
          id: 'lookup_secret_codes',
          text: {
            id: 1050015,
            type: 'info',
            text: '',
            context: { secrets: codes.map((text) => ({ text })) },
          },
          node_type: 'text',
        },
        messages: [],
        meta: {},
      },
    ]);
    const { calls } = identity(({ url, method, body }) => {
      if (url.pathname !== '/self-service/settings' || method !== 'POST') return undefined;
      const b = body as Record<string, unknown>;
      if (b.lookup_secret_regenerate) return { status: 200, body: made };
      if (b.lookup_secret_confirm) return { status: 200, body: { ...settingsFlow(), state: 'success' } };
      return undefined;
    });
    goTo('/account/settings');
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Make new backup codes' }));
    const list = await screen.findByTestId('backup-codes');
    expect(within(list).getAllByRole('listitem')).toHaveLength(12);
    expect(within(list).getByRole('link', { name: 'Download codes' }).getAttribute('download')).toBe(
      'backup-codes.txt',
    );
    fireEvent.click(within(list).getByRole('button', { name: 'I have saved these codes' }));
    expect(await screen.findByText(/Your new backup codes are active/)).toBeTruthy();
    expect(screen.queryByTestId('backup-codes')).toBeNull();
    const posts = calls.filter((c) => c.method === 'POST').map((c) => Object.keys(c.body as object));
    expect(posts).toEqual([
      ['method', 'lookup_secret_regenerate', 'csrf_token'],
      ['method', 'lookup_secret_confirm', 'csrf_token'],
    ]);
  });

  it('a change that needs a recent sign-in goes to the password confirmation the server names', async () => {
    signIn();
    const reauth = 'http://localhost:4433/self-service/login/browser?refresh=true&return_to=x';
    identity(({ url, method }) =>
      url.pathname === '/self-service/settings' && method === 'POST'
        ? {
            status: 403,
            body: { error: { id: 'session_refresh_required', code: 403 }, redirect_browser_to: reauth },
          }
        : undefined,
    );
    goTo('/account/settings');
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Reset 2FA' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith(reauth));
  });

  it('SSO people: their organisation manages password and 2FA', async () => {
    signIn();
    identity(({ url }) =>
      url.pathname === '/sessions/whoami'
        ? { status: 200, body: { ...kratosSession({ methods: ['oidc'] }), devices: [] } }
        : undefined,
    );
    goTo('/account/settings');
    render(<Router />);
    expect(await screen.findByText(/Your organisation manages how you sign in/)).toBeTruthy();
    expect(screen.getByText(/SSO users cannot set up MFA/)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Linked accounts' })).toBeNull();
  });

  it('a member of an organisation that enforces SSO is told why, and offered no password, passkey or address to change', async () => {
    signIn();
    // A password session from before the organisation enforced SSO: the flow decides what is offered.
    const managed = settingsFlow([], []);
    managed.ui.messages = [{ id: SSO_MANAGED_MESSAGE_ID, type: 'info', text: 'server words' }];
    identity(({ url }) =>
      url.pathname === '/self-service/settings/browser' ? { status: 200, body: managed } : undefined,
    );
    goTo('/account/settings');
    render(<Router />);
    const notice = await screen.findByTestId('settings-flow-notice');
    expect(notice.textContent).toBe(copy.settings.ssoManaged);
    const password = screen.getByTestId('settings-password');
    expect(password.textContent).toContain(copy.settings.passwordManaged);
    expect(within(password).queryByRole('button')).toBeNull();
    expect(document.querySelector('input[type="password"]')).toBeNull();
    expect(document.querySelector('input[type="email"]')).toBeNull();
    expect(screen.queryByTestId('settings-passkeys')).toBeNull();
    expect(screen.queryByRole('button', { name: copy.passkeys.add })).toBeNull();
    expect(screen.getByTestId('settings-email').textContent).toBe('ada@acme.test');
    // The name stays theirs to change.
    expect(screen.getByLabelText('First name')).toHaveProperty('value', 'Ada');
  });

  it('unlinking the source-code host needs the password first: the refusal goes to the password confirmation', async () => {
    signIn();
    const linked = { ...kratosSession({ onboarding: { gitProviderConnected: true } }), devices: [] };
    let refused = true;
    const { calls } = identity(({ url, method }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: linked };
      if (url.pathname === '/git-auth' && method === 'DELETE')
        return refused
          ? {
              status: 403,
              body: { errorCode: 'REAUTHENTICATION_REQUIRED', message: 'Confirm your password.' },
            }
          : { status: 200, body: { connected: false, removed: true } };
      return undefined;
    });
    goTo('/account/settings');
    render(<Router />);
    expect((await screen.findByTestId('git-status')).textContent).toBe(
      'Your source-code host account is linked.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Unlink' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalled());
    const to = new URL(nav.redirectTo.mock.calls[0]![0] as string);
    expect(to.pathname).toBe('/self-service/login/browser');
    expect(to.searchParams.get('refresh')).toBe('true');
    expect(to.searchParams.get('return_to')).toBe(`${window.location.origin}/account/settings`);

    refused = false; // back with a fresh sign-in
    fireEvent.click(screen.getByRole('button', { name: 'Unlink' }));
    expect(await screen.findByText('Your source-code host account was unlinked.')).toBeTruthy();
    expect(screen.getByTestId('git-status').textContent).toBe('No source-code host account is linked.');
    expect(calls.filter((c) => c.url.pathname === '/git-auth')).toHaveLength(2);
  });

  it('lists connected apps and revokes one', async () => {
    signIn();
    let apps = [
      { clientId: 'platform', name: 'Platform', scopes: ['openid'], grantedAt: '2026-11-20T08:00:00.000Z' },
      { clientId: 'magic', name: 'MAGIC', scopes: ['openid'], grantedAt: '2026-11-21T08:00:00.000Z' },
    ];
    const { calls } = identity(({ url, method }) => {
      if (url.pathname === '/me/connected-apps') return { status: 200, body: { apps } };
      if (url.pathname === '/me/connected-apps/magic' && method === 'DELETE') {
        apps = apps.filter((a) => a.clientId !== 'magic');
        return { status: 204 };
      }
      return undefined;
    });
    goTo('/account/settings');
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Connected apps' })).toBeTruthy();
    expect(screen.getAllByTestId('connected-app')).toHaveLength(2);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke: MAGIC' }));
    expect(await screen.findByText('MAGIC no longer has access to your account.')).toBeTruthy();
    expect(screen.getAllByTestId('connected-app')).toHaveLength(1);
    const revoke = calls.find((c) => c.method === 'DELETE' && c.url.pathname === '/me/connected-apps/magic')!;
    expect(revoke.credentials).toBe('include');
  });

  it('Microsoft 365 people (no identity session): name, organisation and connected apps through their access token, with Revoke', async () => {
    setConfig(defaultConfig('magic')); // MAGIC allows Microsoft 365 sign-in
    signIn('m365');
    let apps = [
      {
        clientId: 'research-cli',
        name: 'Research CLI',
        scopes: ['openid'],
        grantedAt: '2026-11-20T08:00:00.000Z',
      },
    ];
    const { calls } = mockFetch(({ url, method }) => {
      if (url.pathname === '/sessions/whoami') return { status: 401, body: { error: { code: 401 } } };
      if (url.pathname === '/me/account') {
        return {
          status: 200,
          body: { name: 'Megan Bowen', email: 'megan@contoso.test', organisation: { name: 'Contoso' } },
        };
      }
      if (url.pathname === '/me/connected-apps' && method === 'GET') return { status: 200, body: { apps } };
      if (url.pathname === '/me/connected-apps/research-cli' && method === 'DELETE') {
        apps = [];
        return { status: 204 };
      }
      return undefined;
    });
    goTo('/account/settings');
    render(<Router />);
    const person = await screen.findByTestId('m365-person');
    expect(person.textContent).toContain('Megan Bowen');
    expect(person.textContent).toContain('megan@contoso.test');
    expect(person.textContent).toContain('Contoso');
    expect(screen.getByRole('link', { name: 'Open your Microsoft account' }).getAttribute('href')).toBe(
      'https://myaccount.microsoft.com/',
    );
    // No identity session: no settings flow is asked for, and no password or 2FA section shows.
    expect(calls.some((c) => c.url.pathname === '/self-service/settings/browser')).toBe(false);
    expect(screen.queryByRole('heading', { name: 'Password' })).toBeNull();
    expect(await screen.findAllByTestId('connected-app')).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke: Research CLI' }));
    expect(await screen.findByText('Research CLI no longer has access to your account.')).toBeTruthy();
    expect(screen.queryAllByTestId('connected-app')).toHaveLength(0);
    // The user service is asked with the access token, never with cookies.
    const userCalls = calls.filter((c) => c.url.pathname.startsWith('/me/'));
    expect(userCalls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(
      expect.arrayContaining([
        'GET /me/account',
        'GET /me/connected-apps',
        'DELETE /me/connected-apps/research-cli',
      ]),
    );
    for (const call of userCalls) {
      expect(call.headers.get('authorization')).toMatch(/^Bearer ey/);
      expect(call.credentials).toBe('omit');
    }
  });

  describe('security keys (webauthn) in the Two-factor section', () => {
    const yubikey = { display_name: 'YubiKey', added_at: '2026-11-01T10:00:00Z', last_used_at: null };
    const keyNode = (name: string, value: string, context?: object) => ({
      type: 'input',
      group: 'webauthn',
      attributes: { name, value, type: context ? 'submit' : 'hidden', node_type: 'input' },
      messages: [],
      meta: context ? { label: { id: 1050020, type: 'info', text: 'Remove', context } } : {},
    });
    const options = { challenge: 'c2', rp: { id: 'localhost', name: 'Acme' } };
    const withKeys = settingsFlow([
      keyNode('webauthn_create_data', JSON.stringify({ credentialOptions: { publicKey: options } })),
      keyNode('webauthn_register', ''),
      keyNode('webauthn_remove', 'ff01', yubikey),
      keyNode('webauthn_rename', 'ff01', yubikey),
    ]);
    const posted = (calls: MockCall[]) =>
      calls.filter((c) => c.method === 'POST').map((c) => c.body as Record<string, unknown>);

    it('adds one with a name, renames and removes it, each through the settings flow', async () => {
      signIn();
      const answer = { id: 'new', rawId: 'new', type: 'public-key', response: {} };
      webauthn.startRegistration.mockResolvedValue(answer);
      const { calls } = identity(({ url, method }) => {
        if (url.pathname === '/self-service/settings/browser') return { status: 200, body: withKeys };
        if (url.pathname === '/self-service/settings' && method === 'POST')
          return { status: 200, body: withKeys };
        return undefined;
      });
      goTo('/account/settings');
      render(<Router />);
      const keys = await screen.findByTestId('security-keys');
      expect(within(keys).getByRole('heading', { name: 'Security keys' })).toBeTruthy();
      expect(within(keys).getByTestId('security-key').textContent).toContain('YubiKey');
      expect(within(keys).getByTestId('security-key').textContent).toContain('Never used');

      // A name is needed before the browser is asked.
      fireEvent.click(within(keys).getByRole('button', { name: 'Add a security key' }));
      expect(await within(keys).findByText('Give the security key a name.')).toBeTruthy();
      expect(webauthn.startRegistration).not.toHaveBeenCalled();

      fireEvent.change(within(keys).getByLabelText('Security key name'), {
        target: { value: ' Backup key ' },
      });
      fireEvent.click(within(keys).getByRole('button', { name: 'Add a security key' }));
      expect(await screen.findByText('Security key added.')).toBeTruthy();
      expect(webauthn.startRegistration).toHaveBeenCalledWith({ optionsJSON: options });

      fireEvent.click(screen.getByRole('button', { name: 'Rename security key YubiKey' }));
      fireEvent.change(screen.getByLabelText('New name for YubiKey'), { target: { value: 'Blue key' } });
      fireEvent.click(screen.getByRole('button', { name: 'Save name' }));
      expect(await screen.findByText('Security key renamed.')).toBeTruthy();

      fireEvent.click(screen.getByRole('button', { name: 'Remove security key YubiKey' }));
      expect(await screen.findByText('Security key removed.')).toBeTruthy();

      const csrf_token = expect.any(String);
      expect(posted(calls)).toEqual([
        {
          method: 'webauthn',
          webauthn_register: JSON.stringify(answer),
          webauthn_register_displayname: 'Backup key',
          csrf_token,
        },
        {
          method: 'webauthn',
          webauthn_rename: 'ff01',
          webauthn_register_displayname: 'Blue key',
          csrf_token,
        },
        { method: 'webauthn', webauthn_remove: 'ff01', csrf_token },
      ]);
    });

    it('a cancelled browser prompt sends nothing and says so', async () => {
      signIn();
      webauthn.startRegistration.mockRejectedValue(
        Object.assign(new Error('no'), { name: 'NotAllowedError' }),
      );
      const { calls } = identity(({ url }) =>
        url.pathname === '/self-service/settings/browser' ? { status: 200, body: withKeys } : undefined,
      );
      goTo('/account/settings');
      render(<Router />);
      fireEvent.change(await screen.findByLabelText('Security key name'), { target: { value: 'Key' } });
      fireEvent.click(screen.getByRole('button', { name: 'Add a security key' }));
      expect(await screen.findByText(/No security key was added/)).toBeTruthy();
      expect(posted(calls)).toEqual([]);
    });

    it('removing one without a recent sign-in goes to the password confirmation the server names', async () => {
      signIn();
      const reauth = 'http://localhost:4433/self-service/login/browser?refresh=true&return_to=x';
      identity(({ url, method }) => {
        if (url.pathname === '/self-service/settings/browser') return { status: 200, body: withKeys };
        if (url.pathname === '/self-service/settings' && method === 'POST')
          return {
            status: 403,
            body: { error: { id: 'session_refresh_required', code: 403 }, redirect_browser_to: reauth },
          };
        return undefined;
      });
      goTo('/account/settings');
      render(<Router />);
      fireEvent.click(await screen.findByRole('button', { name: 'Remove security key YubiKey' }));
      await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith(reauth));
    });

    it('SSO people see no security keys (their organisation manages 2FA)', async () => {
      signIn();
      identity(({ url }) => {
        if (url.pathname === '/sessions/whoami')
          return { status: 200, body: { ...kratosSession({ methods: ['oidc'] }), devices: [] } };
        if (url.pathname === '/self-service/settings/browser') return { status: 200, body: withKeys };
        return undefined;
      });
      goTo('/account/settings');
      render(<Router />);
      expect(await screen.findByText(/SSO users cannot set up MFA/)).toBeTruthy();
      expect(screen.queryByTestId('security-keys')).toBeNull();
    });
  });
});
