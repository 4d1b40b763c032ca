// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { clearBrowserState, flowUi } from '../../testing/dom.ts';
import type { MockCall } from '../../testing/fetch-mock.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';

beforeEach(() => {
  clearBrowserState();
  setConfig(defaultConfig('magic'));
  window.history.replaceState(null, '', '/account/mfa-setup');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function session(methods: string[]) {
  return {
    id: 'sess-1',
    active: true,
    authenticator_assurance_level: 'aal1',
    authentication_methods: methods.map((method) => ({ method })),
    identity: {
      id: 'id-1',
      traits: {
        email: 'ada@acme.test',
        onboarding: {
          tosAccepted: true,
          mfaSetupDeadline: '2999-01-01T00:00:00Z',
          isGitUser: false,
          gitProviderConnected: false,
        },
      },
      verifiable_addresses: [{ value: 'ada@acme.test', verified: true }],
    },
  };
}

const totpNodes = [
  {
    type: 'img',
    group: 'totp',
    attributes: { id: 'totp_qr', src: 'data:image/png;base64,AAAA', node_type: 'img' },
    messages: [],
    meta: {},
  },
  {
    type: 'text',
    group: 'totp',
    attributes: {
      id: 'totp_secret_key',
      text: { id: 1050006, type: 'info', text: 'JBSWY3DPEHPK3PXP' },
      node_type: 'text',
    },
    messages: [],
    meta: {},
  },
  {
    type: 'input',
    group: 'totp',
    attributes: { name: 'totp_code', type: 'text', node_type: 'input' },
    messages: [],
    meta: {},
  },
];

describe('MFA setup screen', () => {
  it('without a session goes to login', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    render(<Router />);
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
  });

  it('tells SSO users they cannot set up MFA', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/sessions/whoami' ? { status: 200, body: session(['oidc']) } : undefined,
    );
    render(<Router />);
    expect(await screen.findByText('SSO users cannot set up MFA')).toBeTruthy();
  });

  it('sets up 2FA: wrong code with the scan-again hint, then the success view', async () => {
    let tries = 0;
    let post: MockCall | undefined;
    mockFetch((call) => {
      const { method, url } = call;
      if (url.pathname === '/sessions/whoami') return { status: 200, body: session(['password']) };
      if (url.pathname === '/self-service/settings/browser') {
        return {
          status: 200,
          body: { id: 's-1', type: 'browser', state: 'show_form', ui: flowUi('s-1', 'settings', totpNodes) },
        };
      }
      if (method === 'POST' && url.pathname === '/self-service/settings') {
        post = call;
        tries++;
        if (tries === 1) {
          const nodes = totpNodes.map((n) =>
            n.attributes.name === 'totp_code'
              ? {
                  ...n,
                  messages: [
                    {
                      id: 4000008,
                      type: 'error',
                      text: 'The provided authentication code is invalid, please try again.',
                    },
                  ],
                }
              : n,
          );
          return {
            status: 400,
            body: { id: 's-1', type: 'browser', state: 'show_form', ui: flowUi('s-1', 'settings', nodes) },
          };
        }
        return {
          status: 200,
          body: { id: 's-1', type: 'browser', state: 'success', ui: flowUi('s-1', 'settings') },
        };
      }
      return undefined;
    });
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Set up 2FA' })).toBeTruthy();
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSWY3DPEHPK3PXP');
    expect(read(registry.mfaSetupState)).toEqual({ initialised: true });
    expect(screen.getByRole('button', { name: 'Skip for now' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Privacy Notice' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Contact support' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );

    fireEvent.click(screen.getByLabelText('I have installed an authenticator app'));
    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '000000' } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The provided authentication code is invalid');
    expect(alert.textContent).toContain(
      'You will need to scan the QR code again if your previous attempt failed.',
    );
    expect(post!.body).toEqual({ method: 'totp', totp_code: '000000', csrf_token: 'csrf-1' });

    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '123456' } });
    expect(await screen.findByRole('heading', { name: '2FA' })).toBeTruthy();
    expect(
      screen.getByText(
        "You've successfully added the product MAGIC to your 2FA app. Your account is now extra secure.",
      ),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Return to the product MAGIC' }));
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(read(registry.mfaSetupState)).toBeNull();
  });
});
