// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
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

  it('a person who never accepted the terms sees the Terms step; once accepted, consent is asked again and followed', async () => {
    let consents = 0;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (url.pathname === '/terms/current')
        return {
          status: 200,
          body: {
            terms: { version: 't1', url: 'https://acme.test/terms' },
            privacy: { version: 'p1', url: 'https://acme.test/privacy' },
          },
        };
      if (method === 'POST' && url.pathname === '/terms/accept')
        return { status: 200, body: { tosAccepted: true } };
      if (method === 'POST' && url.pathname === '/login/consent') {
        consents += 1;
        return consents === 1
          ? { status: 403, body: { errorCode: 'TERMS_NOT_ACCEPTED', message: 'Accept the terms.' } }
          : { status: 200, body: { redirectTo: 'http://localhost:4444/oauth2/auth?consent_verifier=v' } };
      }
      return undefined;
    });
    render(<Router />);
    const box = await screen.findByLabelText('I agree to the platform terms of service');
    expect(nav.redirectTo).not.toHaveBeenCalled();
    fireEvent.click(box);
    fireEvent.click(screen.getByLabelText('I agree to the privacy policy'));
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() =>
      expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth?consent_verifier=v'),
    );
    const accepted = calls.find((c) => c.method === 'POST' && c.url.pathname === '/terms/accept')!;
    expect(accepted.body).toEqual({
      documents: [
        { document: 'terms', version: 't1' },
        { document: 'privacy', version: 'p1' },
      ],
    });
    expect(calls.filter((c) => c.method === 'POST' && c.url.pathname === '/login/consent')).toHaveLength(2);
  });
});
