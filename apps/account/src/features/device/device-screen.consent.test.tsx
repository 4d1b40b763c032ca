// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

// The device page's consent step: the client and the access it asks for, then Approve (the
// consent with the browser's own identity session) or Deny.

const nav = vi.hoisted(() => ({ redirectTo: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
}));

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
  goTo('/account/device?consent_challenge=dc-1');
});

function backend() {
  return mockFetch(({ method, url }) => {
    if (url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
    if (url.pathname === '/login/device/consent') {
      return {
        status: 200,
        body: {
          clientId: 'research-cli',
          clientName: 'Research CLI',
          requestedScope: ['openid', 'offline_access'],
        },
      };
    }
    if (method === 'POST' && url.pathname === '/login/consent')
      return { status: 200, body: { redirectTo: 'http://issuer/approved' } };
    if (method === 'POST' && url.pathname === '/login/device/deny')
      return { status: 200, body: { redirectTo: 'http://issuer/denied' } };
    return undefined;
  });
}

describe('device consent', () => {
  it('shows the client and its access; Approve sends the consent with the session id', async () => {
    const { calls } = backend();
    render(<Router />);
    expect(await screen.findByText('Research CLI asks to sign in as you with this access:')).toBeTruthy();
    expect(screen.getByText('Know who you are')).toBeTruthy();
    expect(screen.getByText('Stay signed in until you sign out or the session ends')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://issuer/approved'));
    const posted = calls.find((c) => c.url.pathname === '/login/consent')!;
    expect(posted.body).toEqual({
      consentChallenge: 'dc-1',
      identitySessionId: kratosSession().id,
      decision: 'allow',
    });
  });

  it('Deny rejects the consent with the session id, as Approve proves who answers', async () => {
    const { calls } = backend();
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Deny' }));
    await waitFor(() => expect(nav.redirectTo).toHaveBeenCalledWith('http://issuer/denied'));
    expect(calls.find((c) => c.url.pathname === '/login/device/deny')!.body).toEqual({
      consentChallenge: 'dc-1',
      identitySessionId: kratosSession().id,
    });
    expect(calls.some((c) => c.url.pathname === '/login/consent')).toBe(false);
  });
});
