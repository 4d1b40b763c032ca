// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { fakeJwt, kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';
import { consoleCopy as t } from './copy.ts';

// The Sign-up screen as the router mounts it, against a stand-in for the console API.

const ORG = '11111111-1111-4111-8111-111111111111';
const ME = {
  userId: '33333333-3333-4333-8333-333333333333',
  email: 'ada@acme.test',
  organisationId: ORG,
  role: 'org-admin',
  permissions: ['ViewUsers', 'ManageOrganisationSettings'],
  assignableRoles: ['member'],
};

resetScreenBetweenTests('admin');

function signedIn() {
  write(registry.oauth2Token, {
    accessToken: fakeJwt({ exp: Date.now() / 1000 + 3600, ext: { user: { authenticationMode: 'ory' } } }),
    refreshToken: 'ory_rt_1',
    expiresAt: Date.now() + 3_600_000,
  });
}

function consoleStandIn(answer: (method: string, body: unknown) => { status: number; body: unknown }) {
  return mockFetch((call) => {
    if (call.url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
    if (call.url.pathname === '/console/me') return { status: 200, body: ME };
    if (call.url.pathname !== `/console/organisations/${ORG}/self-signup`) return undefined;
    return answer(call.method, call.body);
  });
}

describe('Sign-up screen', () => {
  it('shows the domains; the switch turns self sign-up on and says it is saved', async () => {
    signedIn();
    let enabled = false;
    const { calls } = consoleStandIn((method, body) => {
      if (method === 'PUT') enabled = (body as { enabled: boolean }).enabled;
      return {
        status: 200,
        body: { organisationId: ORG, enabled, domains: ['acme.test', 'acme.org'], blockedBy: null },
      };
    });
    goTo('/admin/signup');
    render(<Router />);
    const toggle = (await screen.findByRole('switch', { name: t.signup.switchLabel })) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(screen.getByTestId('signup-domains').textContent).toBe('acme.testacme.org');
    expect(screen.getByText(t.signup.off)).toBeTruthy();

    fireEvent.click(toggle);
    expect(await screen.findByText(t.signup.saved(true))).toBeTruthy();
    expect(await screen.findByText(t.signup.on)).toBeTruthy();
    expect((screen.getByRole('switch') as HTMLInputElement).checked).toBe(true);
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ enabled: true }]);
  });

  it('an organisation that enforces SSO sees why, and the switch can not turn it on', async () => {
    signedIn();
    const { calls } = consoleStandIn(() => ({
      status: 200,
      body: { organisationId: ORG, enabled: false, domains: ['acme.test'], blockedBy: 'sso' },
    }));
    goTo('/admin/signup');
    render(<Router />);
    const toggle = (await screen.findByRole('switch', { name: t.signup.switchLabel })) as HTMLInputElement;
    expect(toggle.disabled).toBe(true);
    expect(screen.getByText(t.signup.blocked.sso)).toBeTruthy();
    expect(toggle.getAttribute('aria-describedby')).toBe('self-signup-blocked');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });

  it('a save the service refuses for SSO shows the explanation, and the switch shows the saved state', async () => {
    signedIn();
    let blocked = false;
    consoleStandIn((method) => {
      if (method === 'PUT') {
        blocked = true;
        return {
          status: 403,
          body: { errorCode: 'SELF_SIGNUP_NOT_ALLOWED', message: 'enforces single sign-on', reason: 'sso' },
        };
      }
      return {
        status: 200,
        body: {
          organisationId: ORG,
          enabled: false,
          domains: ['acme.test'],
          blockedBy: blocked ? 'sso' : null,
        },
      };
    });
    goTo('/admin/signup');
    render(<Router />);
    fireEvent.click(await screen.findByRole('switch', { name: t.signup.switchLabel }));
    expect((await screen.findByRole('alert')).textContent).toBe(t.signup.blocked.sso);
    expect((screen.getByRole('switch') as HTMLInputElement).checked).toBe(false);
  });
});
