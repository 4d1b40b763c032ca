// @vitest-environment jsdom
import { render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

// The consent screen never accepts a challenge blindly: it sends the browser's own identity session
// with the challenge, the user service compares the consent's subject with that session's identity
// (only the server can read the consent request), and a mismatch ends on the consent-flow error.

const nav = vi.hoisted(() => ({ redirectTo: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
}));

const MISMATCH =
  'Error in the consent flow, this can happen when login is initiated in different tabs at the same time.';

resetScreenBetweenTests();
beforeEach(() => {
  nav.redirectTo.mockReset();
  goTo('/account/consent?consent_challenge=cc-1');
});

describe('consent screen', () => {
  it("a consent for another user than the session's shows the consent-flow error and goes nowhere", async () => {
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (method === 'POST' && url.pathname === '/login/consent') {
        return {
          status: 403,
          body: { errorCode: 'SESSION_MISMATCH', message: 'The session does not belong to the user.' },
        };
      }
      return undefined;
    });
    render(<Router />);
    expect(await screen.findByText(MISMATCH)).toBeTruthy();
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toEqual({ consentChallenge: 'cc-1', identitySessionId: 'sess-1' });
    expect(nav.redirectTo).not.toHaveBeenCalled();
  });

  it('the matching session is accepted and the browser follows the answer', async () => {
    mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (method === 'POST' && url.pathname === '/login/consent')
        return { status: 200, body: { redirectTo: 'http://localhost:4444/oauth2/auth?consent_verifier=v' } };
      return undefined;
    });
    render(<Router />);
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth?consent_verifier=v'),
    );
    expect(screen.queryByText(MISMATCH)).toBeNull();
  });
});
