// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from './router.tsx';
import { registry } from '../shared/storage/registry.ts';
import { write } from '../shared/storage/storage.ts';
import { mockFetch, type MockCall } from '../testing/fetch-mock.ts';
import { browserFlow, fakeJwt, kratosSession } from '../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../testing/screen.ts';

// The signed-in shell as the router mounts it: the header's person menu, the account page's section
// navigation (own URLs, aria-current), "Back to <application>" and sign-out; against stand-ins for
// the identity and user services.

const NOW = Date.now();
const SESSION = kratosSession();
const ACCOUNT = { name: 'Ada Lovelace', email: 'ada@acme.test', organisation: { name: 'Acme Research' } };
const password = (name: string, type = 'submit') => ({
  type: 'input',
  group: 'password',
  attributes: { name, type, node_type: 'input' },
  messages: [],
  meta: {},
});
const SETTINGS_FLOW = {
  ...browserFlow('settings', 'sf-1', 'show_form', [password('password', 'password'), password('method')]),
  identity: { id: 'i-1', traits: { email: 'ada@acme.test', name: { first: 'Ada', last: 'Lovelace' } } },
};

resetScreenBetweenTests();

function signIn(role = 'member') {
  const accessToken = fakeJwt({
    exp: NOW / 1000 + 3600,
    ext: {
      user: { authenticationMode: 'ory', email: 'ada@acme.test', name: 'Ada Lovelace' },
      products: ['Platform'],
      scopeGroups: [],
      role,
    },
  });
  write(registry.oauth2Token, { accessToken, refreshToken: 'rt', expiresAt: NOW + 3_600_000 });
}

function services(
  extra: (call: MockCall) => { status: number; body?: unknown } | undefined = () => undefined,
) {
  return mockFetch((call) => {
    const answer = extra(call);
    if (answer) return answer;
    switch (call.url.pathname) {
      case '/sessions/whoami':
        return { status: 200, body: SESSION };
      case '/me/account':
        return { status: 200, body: ACCOUNT };
      case '/self-service/settings/browser':
        return { status: 200, body: SETTINGS_FLOW };
      case '/sessions':
        return { status: 200, body: [] };
      case '/me/connected-apps':
        return {
          status: 200,
          body: { apps: [{ clientId: 'platform', name: 'platform', scopes: ['openid'], grantedAt: '' }] },
        };
      default:
        return undefined;
    }
  });
}

async function openPersonMenu() {
  fireEvent.click(await screen.findByRole('button', { name: 'Ada Lovelace: account menu' }));
  return screen.findByRole('menu');
}

describe('the signed-in shell', () => {
  it('names the application, the organisation and the person; a member’s menu has no console', async () => {
    signIn('member');
    services();
    goTo('/research');
    render(<Router />);
    const banner = await screen.findByRole('banner');
    expect(within(banner).getByRole('link', { name: 'Platform' }).getAttribute('href')).toBe('/research');
    expect((await within(banner).findByTestId('shell-organisation')).textContent).toBe(
      'Organisation: Acme Research',
    );
    const menu = await openPersonMenu();
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual(['Account settings', 'Sign out']);
    expect(items[0]!.getAttribute('href')).toBe('/account/settings?from=platform');
  });

  it('offers the organisation console to an org-admin, in the admin application', async () => {
    signIn('org-admin');
    services();
    goTo('/research');
    render(<Router />);
    const menu = await openPersonMenu();
    const console = within(menu).getByRole('menuitem', { name: 'Organisation console' });
    expect(console.getAttribute('href')).toBe('http://localhost:4002/admin?from=platform');
  });

  it('signs out through the logout path from the person menu', async () => {
    signIn();
    services();
    goTo('/research');
    render(<Router />);
    const menu = await openPersonMenu();
    fireEvent.click(within(menu).getByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => expect(window.location.pathname).toBe('/account/logout'));
  });

  it('gives each account section its own URL and marks the open one (aria-current)', async () => {
    signIn();
    services();
    goTo('/account/settings/sessions');
    render(<Router />);
    const nav = await screen.findByRole('navigation', { name: 'Account settings sections' });
    const sessions = within(nav).getByRole('link', { name: 'Sessions' });
    expect(sessions.getAttribute('aria-current')).toBe('page');
    expect(sessions.getAttribute('href')).toBe('/account/settings/sessions');
    expect(within(nav).getByRole('link', { name: 'All settings' }).getAttribute('aria-current')).toBeNull();
    // Only the open section is on the page.
    expect(screen.getByRole('heading', { name: 'Sessions' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Profile' })).toBeNull();
    fireEvent.click(within(nav).getByRole('link', { name: 'Password' }));
    await waitFor(() => expect(window.location.pathname).toBe('/account/settings/password'));
    const after = await screen.findByRole('navigation', { name: 'Account settings sections' });
    await waitFor(() =>
      expect(within(after).getByRole('link', { name: 'Password' }).getAttribute('aria-current')).toBe('page'),
    );
    expect(within(after).getByRole('link', { name: 'Sessions' }).getAttribute('aria-current')).toBeNull();
    expect(await screen.findByRole('heading', { name: 'Password' })).toBeTruthy();
  });

  it('shows connected apps by the application’s name, not the client id', async () => {
    signIn();
    services();
    goTo('/account/settings/connected-apps');
    render(<Router />);
    const app = await screen.findByTestId('connected-app');
    expect(within(app).getByText('Platform', { selector: 'strong' })).toBeTruthy();
    expect(within(app).getByRole('button', { name: 'Revoke: Platform' })).toBeTruthy();
  });

  it('offers Back to <application> when opened from one, keeping it across sections', async () => {
    signIn();
    services();
    goTo('/account/settings?from=magic');
    render(<Router />);
    const back = await screen.findByRole('link', { name: 'Back to MAGIC' });
    expect(back.getAttribute('href')).toBe('http://localhost:4001/');
    const nav = screen.getByRole('navigation', { name: 'Account settings sections' });
    expect(within(nav).getByRole('link', { name: 'Profile' }).getAttribute('href')).toBe(
      '/account/settings/profile?from=magic',
    );
  });

  it('offers Back to this application at its initial page', async () => {
    signIn();
    services();
    goTo('/account/settings?from=platform');
    render(<Router />);
    expect((await screen.findByRole('link', { name: 'Back to Platform' })).getAttribute('href')).toBe(
      '/research',
    );
  });

  it('threat: a `from` that is not an application id never becomes a link (no open redirect)', async () => {
    signIn();
    services();
    goTo('/account/settings?from=https%3A%2F%2Fevil.test%2F');
    render(<Router />);
    await screen.findByRole('navigation', { name: 'Account settings sections' });
    expect(screen.queryByRole('link', { name: /^Back to/ })).toBeNull();
    for (const link of screen.getAllByRole('link')) expect(link.getAttribute('href')).not.toContain('evil');
  });
});
