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

describe('LoginScreen: passkey autofill the browser holds open', () => {
  it('asks the browser once for the challenge, not again when the flow it made arrives', async () => {
    // A person has not picked a passkey yet: the request stays open. A second request for the
    // same challenge would abort the first, and an answer picked meanwhile would be lost.
    webauthn.startAuthentication.mockImplementation(() => new Promise(() => {}));
    // The login flow comes late, as over a slow network: the request is made with the flow it
    // asks for itself, before the page's own flow arrives.
    mockFetch(async ({ url }) => {
      if (url.pathname !== '/self-service/login/browser')
        return { status: 401, body: { error: { code: 401 } } };
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', [challenge]) };
    });
    render(<LoginScreen search={{}} />);
    await waitFor(() => expect(webauthn.startAuthentication).toHaveBeenCalled());
    await screen.findByRole('button', { name: 'Sign in with a passkey' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(webauthn.startAuthentication).toHaveBeenCalledTimes(1);
  });
});
