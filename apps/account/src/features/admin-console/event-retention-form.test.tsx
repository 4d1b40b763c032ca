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

// The event retention field of the Security events screen, against a stand-in for the console API.

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

describe('Security events screen: event retention', () => {
  it('shows the current value and saves a new number of days', async () => {
    write(registry.oauth2Token, {
      accessToken: fakeJwt({ exp: Date.now() / 1000 + 3600, ext: { user: { authenticationMode: 'ory' } } }),
      refreshToken: 'ory_rt_1',
      expiresAt: Date.now() + 3_600_000,
    });
    let retentionDays: number | null = null;
    const { calls } = mockFetch((call) => {
      const path = call.url.pathname;
      if (path === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (path === '/console/me') return { status: 200, body: ME };
      if (path === `/console/organisations/${ORG}/events`)
        return { status: 200, body: { events: [], nextCursor: null } };
      if (path === `/console/organisations/${ORG}/members`)
        return { status: 200, body: { members: [], total: 0, totalExact: true, page: 1, pageSize: 100 } };
      if (path !== `/console/organisations/${ORG}/event-retention`) return undefined;
      if (call.method === 'PUT')
        retentionDays = (call.body as { retentionDays: number | null }).retentionDays;
      return { status: 200, body: { organisationId: ORG, retentionDays, serviceRetentionDays: 400 } };
    });
    goTo('/admin/events');
    render(<Router />);
    const field = (await screen.findByLabelText(t.events.retentionLabel)) as HTMLInputElement;
    expect(field.value).toBe('');
    expect(screen.getByText(t.events.retentionService(400), { exact: false })).toBeTruthy();

    fireEvent.change(field, { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: t.events.retentionSave }));
    expect(await screen.findByText(t.events.retentionSaved)).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ retentionDays: 30 });
    expect(await screen.findByText(t.events.retentionOwn(30, 400), { exact: false })).toBeTruthy();
  });
});
