// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import { mockFetch, type MockCall } from '../../testing/fetch-mock.ts';
import { fakeJwt, kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

// The admin console as the router mounts it, against a stand-in for the user service's console API.

const NOW = Date.now();
const ORG = '11111111-1111-4111-8111-111111111111';
const GRACE = {
  id: '22222222-2222-4222-8222-222222222222',
  email: 'grace@acme.test',
  firstName: 'Grace',
  lastName: 'Hopper',
  role: 'member',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  deactivatedAt: null,
};
const ORG_ADMIN = {
  userId: '33333333-3333-4333-8333-333333333333',
  email: 'ada@acme.test',
  organisationId: ORG,
  role: 'org-admin',
  permissions: ['ViewUsers', 'ManageOrganisationUsers', 'ManageOrganisationSettings'],
  assignableRoles: ['member', 'admin', 'org-admin'],
};
const MEMBER = { ...ORG_ADMIN, role: 'member', permissions: ['ViewDataBundles'], assignableRoles: [] };

function signedIn(
  me: unknown,
  more: (call: MockCall) => { status: number; body?: unknown } | undefined = () => undefined,
) {
  write(registry.oauth2Token, {
    accessToken: fakeJwt({ exp: NOW / 1000 + 3600, ext: { user: { authenticationMode: 'ory' } } }),
    refreshToken: 'ory_rt_1',
    expiresAt: NOW + 3_600_000,
  });
  return mockFetch((call) => {
    if (call.url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
    if (call.url.pathname === '/console/me') return { status: 200, body: me };
    return more(call);
  });
}

resetScreenBetweenTests('admin');

describe('admin console screens', () => {
  it('an org-admin opening /admin lands on Members, loaded with the bearer token', async () => {
    const { calls } = signedIn(ORG_ADMIN, ({ url }) =>
      url.pathname === `/console/organisations/${ORG}/members`
        ? { status: 200, body: { members: [GRACE], total: 1, page: 1, pageSize: 25 } }
        : undefined,
    );
    goTo('/admin');
    render(<Router />);
    expect(await screen.findByRole('link', { name: 'Grace Hopper' })).toBeTruthy();
    expect(window.location.pathname).toBe('/admin/members');
    expect(screen.getByRole('link', { name: 'Security events' })).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.endsWith('/members'))).toBe(true);
  });

  it.each(['/admin', '/admin/members', '/admin/invitations', '/admin/events'])(
    'a member sees Access Denied on %s and no member data is asked for',
    async (path) => {
      const { calls } = signedIn(MEMBER);
      goTo(path);
      render(<Router />);
      expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
      expect(calls.some((c) => c.url.pathname.startsWith('/console/organisations'))).toBe(false);
    },
  );

  it('outside the admin application the console is Access Denied without calling the API', async () => {
    setConfig(defaultConfig('dashboard'));
    const { calls } = signedIn(ORG_ADMIN);
    goTo('/admin/members');
    render(<Router />);
    expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.startsWith('/console/'))).toBe(false);
  });

  it('deactivating asks for confirmation first; Cancel sends nothing, Yes deactivates', async () => {
    let status = 'active';
    const { calls } = signedIn(ORG_ADMIN, ({ url, method }) => {
      const member = `/console/organisations/${ORG}/members/${GRACE.id}`;
      if (url.pathname === member) {
        return {
          status: 200,
          body: {
            ...GRACE,
            status,
            identityState: 'active',
            signInMethods: ['password'],
            twoFactor: false,
            recentEvents: [],
          },
        };
      }
      if (method === 'POST' && url.pathname === `${member}/deactivate`) {
        status = 'deactivated';
        return { status: 200, body: { ...GRACE, status } };
      }
      return undefined;
    });
    goTo(`/admin/member?id=${GRACE.id}`);
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Deactivate' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Deactivate Grace Hopper?');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls.some((c) => c.url.pathname.endsWith('/deactivate'))).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Deactivate' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, deactivate' }));
    await waitFor(() => expect(screen.getByTestId('member-status').textContent).toBe('Deactivated'));
    expect(calls.filter((c) => c.url.pathname.endsWith('/deactivate'))).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Reactivate' })).toBeTruthy();
  });
});
