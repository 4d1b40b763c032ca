// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toastStore } from '../../shared/errors/error-store.ts';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow, passkeyChallengeNode } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { LoginScreen } from './login-screen.tsx';

// The browser's WebAuthn half (a third party): it says autofill works, then refuses the request, as
// Chromium's headless shell does ("Resident credentials … are not supported at this time").
const webauthn = vi.hoisted(() => ({
  browserSupportsWebAuthnAutofill: vi.fn(async () => true),
  startAuthentication: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => webauthn);

const REFUSED = Object.assign(new Error('Resident credentials are not supported at this time.'), {
  name: 'NotSupportedError',
});

const challenge = passkeyChallengeNode({ challenge: 'c1', allowCredentials: [] });

resetScreenBetweenTests();
beforeEach(() => {
  window.history.replaceState(null, '', '/account/login');
  write(registry.loginChallenge, 'ch-1');
  vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {});
  webauthn.startAuthentication.mockReset();
  webauthn.startAuthentication.mockRejectedValue(REFUSED);
  mockFetch(({ url }) =>
    url.pathname === '/self-service/login/browser'
      ? { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', [challenge]) }
      : { status: 401, body: { error: { code: 401 } } },
  );
});

describe('LoginScreen: passkey autofill the browser refuses', () => {
  it('the page asked, not the person: no toast and the Email step stays as it was', async () => {
    render(<LoginScreen search={{}} />);
    await waitFor(() =>
      expect(webauthn.startAuthentication).toHaveBeenCalledWith(
        expect.objectContaining({ useBrowserAutofill: true }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(toastStore.getSnapshot()).toEqual([]);
    expect(screen.getByLabelText('Email')).toBeTruthy();
  });

  it('"Sign in with a passkey" refused the same way is reported: the person asked for it', async () => {
    render(<LoginScreen search={{}} />);
    await waitFor(() => expect(webauthn.startAuthentication).toHaveBeenCalledTimes(1));
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await waitFor(() => expect(toastStore.getSnapshot()).not.toEqual([]));
    expect(webauthn.startAuthentication).toHaveBeenLastCalledWith(
      expect.objectContaining({ useBrowserAutofill: false }),
    );
    expect(toastStore.getSnapshot()[0]?.message).toContain('Resident credentials are not supported');
  });
});
