import type { BrowserContext, Page } from 'playwright-core';

// Chromium's virtual WebAuthn authenticator (DevTools protocol), standing in for a person's
// authenticator in the journeys (passkeys.e2e.ts, screens-more.ts).

/**
 * A platform authenticator for `page`: discoverable credentials, user verified, presence simulated;
 * or (`usb`) a roaming security key without user verification.
 */
export async function virtualAuthenticator(
  context: BrowserContext,
  page: Page,
  kind: 'platform' | 'usb' = 'platform',
) {
  const platform = kind === 'platform';
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: platform ? 'internal' : 'usb',
      hasResidentKey: platform,
      hasUserVerification: platform,
      isUserVerified: platform,
      automaticPresenceSimulation: true,
    },
  });
  return cdp;
}

/** A browser without passkey autofill: the Email step asks for no passkey in the background. */
export const noAutofill = (page: Page) =>
  page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
  });
