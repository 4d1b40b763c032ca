// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { kratosSession } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';
import { consentRequest } from '../../testing/fixtures.ts';

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
      if (url.pathname === '/login/consent/request') return { status: 200, body: consentRequest() };
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
      if (url.pathname === '/login/consent/request') return { status: 200, body: consentRequest() };
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
      if (url.pathname === '/login/consent/request') return { status: 200, body: consentRequest() };
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

describe('the consent screen of another application', () => {
  const reports = consentRequest({
    needsConsent: true,
    client: {
      clientId: 'reports',
      name: 'Reports',
      logoUri: 'https://reports.acme.test/logo.png',
      clientUri: 'https://reports.acme.test',
      policyUri: 'https://reports.acme.test/privacy',
      tosUri: null,
    },
    registeredBy: { organisation: 'Acme' },
    requestedScope: ['openid', 'offline_access'],
  });

  function backend(request = reports) {
    return mockFetch(({ method, url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
      if (url.pathname === '/login/consent/request') return { status: 200, body: request };
      if (method === 'POST' && url.pathname === '/login/consent')
        return { status: 200, body: { redirectTo: 'http://localhost:4444/oauth2/auth?consent_verifier=v' } };
      return undefined;
    });
  }

  it.each([
    ['Allow', 'allow'],
    ['Deny', 'deny'],
  ])(
    'names the application, who registered it, the access in words and the organisation; %s answers %s',
    async (button, decision) => {
      const { calls } = backend();
      render(<Router />);
      expect(await screen.findByRole('heading', { name: 'Allow Reports to sign you in?' })).toBeTruthy();
      expect(screen.getByText('Registered by Acme.')).toBeTruthy();
      expect(screen.getByText('Know who you are')).toBeTruthy();
      expect(screen.getByText('Stay signed in until you sign out or the session ends')).toBeTruthy();
      expect(screen.getByText('You sign in for Acme.')).toBeTruthy();
      // Nothing is sent before the person answers.
      expect(calls.some((c) => c.method === 'POST')).toBe(false);
      fireEvent.click(screen.getByRole('button', { name: button }));
      await waitFor(() =>
        expect(nav.redirectTo).toHaveBeenCalledWith('http://localhost:4444/oauth2/auth?consent_verifier=v'),
      );
      expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
        consentChallenge: 'cc-1',
        identitySessionId: 'sess-1',
        decision,
      });
    },
  );

  it('an application registered by the operator says so', async () => {
    backend({ ...reports, registeredBy: { organisation: null } });
    render(<Router />);
    expect(await screen.findByText('Registered by the platform operator.')).toBeTruthy();
  });

  it('threat: an application’s own texts are shown as text, never as HTML', async () => {
    const name = '<img src=x onerror="alert(1)"><b>Evil</b>';
    backend({ ...reports, client: { ...reports.client, name, logoUri: null } });
    const { container } = render(<Router />);
    expect(await screen.findByRole('heading', { name: `Allow ${name} to sign you in?` })).toBeTruthy();
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
  });

  it('threat: the application’s links and logo learn nothing of this page (no opener, no referrer)', async () => {
    backend();
    render(<Router />);
    const policy = await screen.findByRole('link', { name: 'Privacy policy' });
    expect(policy.getAttribute('href')).toBe('https://reports.acme.test/privacy');
    // The application's links (the shell's own are same-origin links of this app).
    for (const link of within(screen.getByRole('main')).getAllByRole('link')) {
      expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    }
    expect(screen.queryByRole('link', { name: 'Terms of service' })).toBeNull();
    const logo = screen.getByRole('img', { name: 'Reports logo' });
    expect(logo.getAttribute('src')).toBe('https://reports.acme.test/logo.png');
    expect(logo.getAttribute('referrerpolicy')).toBe('no-referrer');
  });
});
