// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import type { MockCall } from '../../testing/fetch-mock.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow, kratosSession, totpSetupNodes } from '../../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

resetScreenBetweenTests('magic');
beforeEach(() => goTo('/account/mfa-setup'));

function session(methods: string[]) {
  return kratosSession({ methods });
}

const totpNodes = [
  ...totpSetupNodes,
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
          body: browserFlow('settings', 's-1', 'show_form', totpNodes),
        };
      }
      if (method === 'POST' && url.pathname === '/self-service/settings') {
        post = call;
        tries++;
        if (tries === 1) {
          const nodes = totpNodes.map((n) =>
            (n.attributes as { name?: string }).name === 'totp_code'
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
            body: browserFlow('settings', 's-1', 'show_form', nodes),
          };
        }
        return {
          status: 200,
          body: browserFlow('settings', 's-1', 'success'),
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

  it('after the set-up, offers the backup codes in a step of their own before the success view', async () => {
    const codes = Array.from({ length: 12 }, (_, i) => `bk${String(i).padStart(6, '0')}`);
    const bodies: unknown[] = [];
    mockFetch((call) => {
      const { method, url } = call;
      if (url.pathname === '/sessions/whoami') return { status: 200, body: session(['password']) };
      if (url.pathname === '/self-service/settings/browser')
        return { status: 200, body: browserFlow('settings', 's-1', 'show_form', totpNodes) };
      if (method === 'POST' && url.pathname === '/self-service/settings') {
        bodies.push(call.body);
        const b = call.body as Record<string, unknown>;
        if (b.lookup_secret_regenerate) {
          const node = {
            type: 'text',
            group: 'lookup_secret',
            attributes: {
              id: 'lookup_secret_codes',
              text: {
                id: 1050015,
                type: 'info',
                text: '',
                context: { secrets: codes.map((text) => ({ text })) },
              },
              node_type: 'text',
            },
            messages: [],
            meta: {},
          };
          return { status: 200, body: browserFlow('settings', 's-1', 'show_form', [node]) };
        }
        return { status: 200, body: browserFlow('settings', 's-1', 'success') };
      }
      return undefined;
    });
    render(<Router />);
    fireEvent.click(await screen.findByLabelText('I have installed an authenticator app'));
    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '123456' } });
    expect(await screen.findByRole('heading', { name: 'Save your backup codes' })).toBeTruthy();
    expect(screen.getByTestId('backup-codes').querySelectorAll('li')).toHaveLength(12);
    expect(screen.getByRole('button', { name: 'Copy codes' })).toBeTruthy();
    const download = screen.getByRole('link', { name: 'Download codes' });
    expect(download.getAttribute('href')).toContain(codes[0]);
    // Copy and Download side by side while their words fit, one above the other when not (German, 320 px).
    expect(download.parentElement?.className).toBe('row wrap');
    fireEvent.click(screen.getByRole('button', { name: 'I have saved these codes' }));
    expect(await screen.findByRole('heading', { name: '2FA' })).toBeTruthy();
    expect(
      bodies.map((b) => Object.keys(b as object).filter((k) => k.startsWith('lookup') || k === 'totp_code')),
    ).toEqual([['totp_code'], ['lookup_secret_regenerate'], ['lookup_secret_confirm']]);
  });
});
