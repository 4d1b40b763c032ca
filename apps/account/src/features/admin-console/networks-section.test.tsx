// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { fakeJwt, kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';
import { consoleCopy as t } from './copy.ts';

// The Trusted networks screen as the router mounts it, against a stand-in for the console API.

const ORG = '11111111-1111-4111-8111-111111111111';
const ME = {
  userId: '33333333-3333-4333-8333-333333333333',
  email: 'ada@acme.test',
  organisationId: ORG,
  role: 'org-admin',
  permissions: ['ViewUsers', 'ManageIPWhitelist'],
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

describe('Trusted networks screen', () => {
  it('a list that excludes the admin asks first; "Save anyway" saves with confirmLockout', async () => {
    signedIn();
    let saved: string[] = [];
    const { calls } = mockFetch((call) => {
      if (call.url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (call.url.pathname === '/console/me') return { status: 200, body: ME };
      if (call.url.pathname !== `/console/organisations/${ORG}/trusted-networks`) return undefined;
      const answer = { ranges: saved, yourAddress: '203.0.113.9', updatedAt: null };
      if (call.method === 'GET') return { status: 200, body: answer };
      const body = call.body as { ranges: string[]; confirmLockout?: boolean };
      if (!body.confirmLockout) {
        return {
          status: 409,
          body: {
            errorCode: 'LOCKOUT_CONFIRMATION_REQUIRED',
            message: 'confirm',
            yourAddress: '203.0.113.9',
          },
        };
      }
      saved = body.ranges;
      return { status: 200, body: { ...answer, ranges: saved } };
    });
    goTo('/admin/networks');
    render(<Router />);
    expect(await screen.findByText(t.networks.yourAddress('203.0.113.9'))).toBeTruthy();
    expect(screen.getByText(t.networks.none)).toBeTruthy();

    fireEvent.change(screen.getByLabelText(t.networks.rangesLabel), {
      target: { value: '198.51.100.0/24\n' },
    });
    fireEvent.click(screen.getByRole('button', { name: t.networks.save }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog.textContent).toContain(t.networks.confirmLockout('203.0.113.9'));
    fireEvent.click(screen.getByRole('button', { name: t.networks.confirm }));
    expect(await screen.findByText(t.networks.saved(1))).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    const puts = calls.filter((c) => c.method === 'PUT').map((c) => c.body);
    expect(puts).toEqual([
      { ranges: ['198.51.100.0/24'], confirmLockout: false },
      { ranges: ['198.51.100.0/24'], confirmLockout: true },
    ]);
  });

  it('a range that is no CIDR is refused on the screen, and nothing is sent', async () => {
    signedIn();
    const { calls } = mockFetch((call) => {
      if (call.url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (call.url.pathname === '/console/me') return { status: 200, body: ME };
      if (call.url.pathname === `/console/organisations/${ORG}/trusted-networks`) {
        return { status: 200, body: { ranges: [], yourAddress: '203.0.113.9', updatedAt: null } };
      }
      return undefined;
    });
    goTo('/admin/networks');
    render(<Router />);
    fireEvent.change(await screen.findByLabelText(t.networks.rangesLabel), { target: { value: 'office' } });
    fireEvent.click(screen.getByRole('button', { name: t.networks.save }));
    expect((await screen.findByRole('alert')).textContent).toBe(t.networks.badRange('office'));
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });
});
