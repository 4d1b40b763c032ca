// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
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
const MEMBER = {
  ...ORG_ADMIN,
  role: 'member',
  permissions: ['ViewDataBundles', 'ManageAccessTokens'],
  assignableRoles: [],
};
const FULL_ORG_ADMIN = {
  ...ORG_ADMIN,
  permissions: [...ORG_ADMIN.permissions, 'ManageAccessTokens', 'MagicManageOrganisationBilling'],
};
const CLIENT = {
  id: 'client-1',
  kind: 'client_credentials',
  name: 'nightly export',
  scopeGroups: ['research'],
  redirectUris: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'ada@acme.test',
  revokedAt: null,
};

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
        ? { status: 200, body: { members: [GRACE], total: 1, totalExact: true, page: 1, pageSize: 25 } }
        : undefined,
    );
    goTo('/admin');
    render(<Router />);
    expect(await screen.findByRole('link', { name: 'Grace Hopper' })).toBeTruthy();
    expect(window.location.pathname).toBe('/admin/members');
    expect(screen.getByRole('link', { name: 'Security events' })).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.endsWith('/members'))).toBe(true);
  });

  it('a broad search that stopped counting says "or more" and pages on past its floor', async () => {
    const { calls } = signedIn(ORG_ADMIN, ({ url }) => {
      if (url.pathname !== `/console/organisations/${ORG}/members`) return undefined;
      const q = url.searchParams.get('q');
      const page = Number(url.searchParams.get('page'));
      return q === null
        ? { status: 200, body: { members: [GRACE], total: 1, totalExact: true, page: 1, pageSize: 25 } }
        : {
            status: 200,
            body: { members: [GRACE], total: 25 * page + 1000, totalExact: false, page, pageSize: 25 },
          };
    });
    goTo('/admin/members');
    render(<Router />);
    expect(await screen.findByText('1 members')).toBeTruthy();
    expect(screen.getByText('Page 1 of 1')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Search by name or email'), { target: { value: 'g' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('1,025 or more members')).toBeTruthy();
    expect(screen.getByText('Page 1 of at least 41')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Page 2 of at least 42')).toBeTruthy();
    const searches = calls.filter((c) => c.url.searchParams.get('q') === 'g');
    expect(searches.map((c) => c.url.searchParams.get('page'))).toEqual(['1', '2']);
  });

  it.each([
    '/admin',
    '/admin/members',
    '/admin/invitations',
    '/admin/events',
    '/admin/api-clients',
    '/admin/subscription',
  ])('a member sees Access Denied on %s and no member data is asked for', async (path) => {
    const { calls } = signedIn(MEMBER);
    goTo(path);
    render(<Router />);
    expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.startsWith('/console/organisations'))).toBe(false);
  });

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
            lastSignIn: { at: '2026-01-02T09:00:00.000Z', method: 'password', ip: '203.0.113.7' },
            lockout: { locked: true, lockedUntil: '2026-01-02T09:15:00.000Z', failedAttempts: 10 },
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
    // The sign-in facts come from the identity service through the console API.
    expect(screen.getByTestId('member-last-sign-in').textContent).toContain(
      'with password, from 203.0.113.7',
    );
    expect(screen.getByTestId('member-lockout').textContent).toMatch(
      /^Locked until .+ \(10 failed attempts\)$/,
    );
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

  it('creates an API client: the secret shows once; revoking asks first, Cancel sends nothing', async () => {
    let clients: unknown[] = [];
    const { calls } = signedIn(FULL_ORG_ADMIN, ({ url, method, body }) => {
      const base = `/console/organisations/${ORG}/api-clients`;
      if (method === 'GET' && url.pathname === base) return { status: 200, body: { apiClients: clients } };
      if (method === 'POST' && url.pathname === base) {
        expect(body).toEqual({ name: 'nightly export', scopeGroups: ['research', 'quant'] });
        clients = [CLIENT];
        return { status: 201, body: { ...CLIENT, clientSecret: 'secret-shown-once' } };
      }
      if (method === 'POST' && url.pathname === `${base}/client-1/revoke`) {
        clients = [{ ...CLIENT, revokedAt: '2026-01-02T00:00:00.000Z' }];
        return { status: 200, body: clients[0] };
      }
      return undefined;
    });
    goTo('/admin/api-clients');
    render(<Router />);
    expect(await screen.findByText('No API clients yet. Create one with the form above.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'nightly export' } });
    fireEvent.change(screen.getByLabelText('Scope groups (separated by commas)'), {
      target: { value: 'research, quant' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Create API client' }));
    expect((await screen.findByTestId('api-client-secret')).textContent).toBe('secret-shown-once');
    fireEvent.click(screen.getByRole('button', { name: 'I have copied the secret' }));
    expect(screen.queryByTestId('api-client-secret')).toBeNull();

    fireEvent.click(await screen.findByRole('button', { name: 'Revoke nightly export' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Revoke nightly export?');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.url.pathname.endsWith('/revoke'))).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke nightly export' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, revoke' }));
    expect(await screen.findByText('API client revoked.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Revoke nightly export' })).toBeNull());
    expect(calls.filter((c) => c.url.pathname.endsWith('/revoke'))).toHaveLength(1);
  });

  it('registers a web app: the kind chosen, redirect URI rows added and removed, the server’s reason beside the field, the secret once, listed with its redirect URIs', async () => {
    const CALLBACK = 'https://reports.acme.test/callback';
    const WEB = {
      ...CLIENT,
      id: 'web-1',
      kind: 'web',
      name: 'Reports',
      scopeGroups: [],
      redirectUris: [CALLBACK],
    };
    let clients: unknown[] = [];
    const posted: unknown[] = [];
    signedIn(FULL_ORG_ADMIN, ({ url, method, body }) => {
      const base = `/console/organisations/${ORG}/api-clients`;
      if (method === 'GET' && url.pathname === base) return { status: 200, body: { apiClients: clients } };
      if (method === 'POST' && url.pathname === base) {
        posted.push(body);
        const uris = (body as { redirectUris: string[] }).redirectUris;
        if (uris.some((u) => u.startsWith('http:'))) {
          return {
            status: 400,
            body: {
              errorCode: 'INVALID_REQUEST',
              message: 'redirect_uris: http://reports.acme.test/callback must use https.',
              field: 'redirectUris',
            },
          };
        }
        clients = [WEB];
        return { status: 201, body: { ...WEB, clientSecret: 'web-secret-once' } };
      }
      return undefined;
    });
    goTo('/admin/api-clients');
    render(<Router />);
    expect(await screen.findByText('No API clients yet. Create one with the form above.')).toBeTruthy();
    const kinds = screen.getByRole('radiogroup', { name: 'Kind of client' });
    expect(kinds).toBeTruthy();
    expect(
      (screen.getByRole('radio', { name: 'Client credentials (server to server)' }) as HTMLInputElement)
        .checked,
    ).toBe(true);
    expect(screen.queryByLabelText('Redirect URI 1')).toBeNull();
    fireEvent.click(screen.getByRole('radio', { name: 'Web app (sign in with the platform)' }));
    expect(screen.queryByLabelText('Scope groups (separated by commas)')).toBeNull();

    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Reports' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create API client' }));
    expect(await screen.findByText('Enter at least one redirect URI.')).toBeTruthy();
    expect(posted).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('Redirect URI 1'), {
      target: { value: 'http://reports.acme.test/callback' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Add a redirect URI' }));
    fireEvent.change(screen.getByLabelText('Redirect URI 2'), { target: { value: 'https://other.test/x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove redirect URI 2' }));
    expect(screen.queryByLabelText('Redirect URI 2')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Create API client' }));
    const reason = await screen.findByText(
      'redirect_uris: http://reports.acme.test/callback must use https.',
    );
    const field = screen.getByLabelText('Redirect URI 1');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field.getAttribute('aria-describedby')).toBe(reason.parentElement?.id);
    expect(posted).toEqual([
      { kind: 'web', name: 'Reports', redirectUris: ['http://reports.acme.test/callback'] },
    ]);

    fireEvent.change(field, { target: { value: CALLBACK } });
    fireEvent.click(screen.getByRole('button', { name: 'Create API client' }));
    expect((await screen.findByTestId('api-client-secret')).textContent).toBe('web-secret-once');
    expect(posted[1]).toEqual({ kind: 'web', name: 'Reports', redirectUris: [CALLBACK] });
    const row = (await screen.findByRole('button', { name: 'Revoke Reports' })).closest('tr')!;
    expect(row.textContent).toContain('Web app (sign in with the platform)');
    expect(row.textContent).toContain(CALLBACK);
  });

  it('a bad API client form is refused in words before any call', async () => {
    const { calls } = signedIn(FULL_ORG_ADMIN, ({ url }) =>
      url.pathname.endsWith('/api-clients') ? { status: 200, body: { apiClients: [] } } : undefined,
    );
    goTo('/admin/api-clients');
    render(<Router />);
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'x' } });
    fireEvent.change(screen.getByLabelText('Scope groups (separated by commas)'), {
      target: { value: 'bad!' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Create API client' }));
    expect((await screen.findByRole('alert')).textContent).toBe('"bad!" is not a scope group name.');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it("shows the organisation's plan and status, read-only", async () => {
    signedIn(FULL_ORG_ADMIN, ({ url }) =>
      url.pathname === `/console/organisations/${ORG}/subscription`
        ? {
            status: 200,
            body: {
              status: 'subscribed',
              m365: true,
              marketplace: [
                {
                  id: 's1',
                  offerId: 'magic-saas',
                  planId: 'magic-team',
                  quantity: 25,
                  status: 'Suspended',
                  activatedAt: '2026-01-01T00:00:00.000Z',
                  updatedAt: '2026-01-02T00:00:00.000Z',
                },
              ],
            },
          }
        : undefined,
    );
    goTo('/admin/subscription');
    render(<Router />);
    expect(await screen.findByText('Suspended', { selector: 'strong' })).toBeTruthy();
    expect(screen.getAllByText('magic-team (magic-saas)').length).toBeGreaterThan(0);
    // Read-only: no action in the section (the shell's navigation button aside).
    expect(within(screen.getByRole('main')).queryByRole('button')).toBeNull();
  });
  it('invitations: the form invites and empties itself; open ones offer Resend and Revoke, a revoked one Resend, an accepted one nothing', async () => {
    const invitation = (email: string, state: string) => ({
      id: `44444444-4444-4444-8444-${String(email.length).padStart(12, '0')}`,
      state,
      organisationId: ORG,
      userId: GRACE.id,
      identityId: 'identity',
      email,
      firstName: 'First',
      lastName: 'Last',
      role: 'member',
      expiresAt: '2026-02-01T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastSentAt: '2026-01-01T00:00:00.000Z',
      sendCount: 1,
      acceptedAt: null,
      revokedAt: null,
    });
    const list = [
      invitation('pending@acme.test', 'pending'),
      invitation('revoked@acme.test.x', 'revoked'),
      invitation('accepted@acme.test.xy', 'accepted'),
    ];
    const { calls } = signedIn(ORG_ADMIN, ({ method, url }) => {
      if (url.pathname === `/console/organisations/${ORG}/invitations`) {
        return method === 'POST'
          ? { status: 201, body: invitation('new@acme.test', 'pending') }
          : { status: 200, body: { invitations: list } };
      }
      if (url.pathname.endsWith('/resend')) return { status: 200, body: list[1] };
      return undefined;
    });
    goTo('/admin/invitations');
    render(<Router />);
    expect(await screen.findByRole('button', { name: 'Resend pending@acme.test' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Revoke pending@acme.test' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Resend revoked@acme.test.x' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Revoke revoked@acme.test.x' })).toBeNull();
    expect(screen.queryByRole('button', { name: /accepted@acme\.test\.xy/ })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Resend revoked@acme.test.x' }));
    expect((await screen.findByRole('status')).textContent).toBe('Invitation sent again.');
    expect(calls.some((c) => c.method === 'POST' && c.url.pathname.endsWith(`/${list[1]!.id}/resend`))).toBe(
      true,
    );

    const field = (name: string) => screen.getByRole('textbox', { name }) as HTMLInputElement;
    fireEvent.change(field('Email'), { target: { value: 'new@acme.test' } });
    fireEvent.change(field('First name'), { target: { value: 'New' } });
    fireEvent.change(field('Last name'), { target: { value: 'Person' } });
    expect(field('Email').type).toBe('email');
    fireEvent.click(screen.getByRole('button', { name: 'Send invitation' }));
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe('Invitation sent to new@acme.test.'),
    );
    expect(calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('/invitations'))?.body).toEqual({
      email: 'new@acme.test',
      firstName: 'New',
      lastName: 'Person',
      role: 'member',
    });
    expect([field('Email').value, field('First name').value, field('Last name').value]).toEqual(['', '', '']);
  });
});
