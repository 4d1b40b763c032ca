// The browser half of WebAuthn through @simplewebauthn/browser, loaded only when a passkey is used,
// so the login route's bundle stays within its budget.

const library = () => import('@simplewebauthn/browser');

/** Makes a passkey with the service's options; answers the JSON the identity service expects. */
export async function createPasskey(options: unknown): Promise<string> {
  const { startRegistration } = await library();
  const answer = await startRegistration({ optionsJSON: options as never });
  return JSON.stringify(answer);
}

/** Asks for a passkey (or, with `autofill`, waits for one chosen in the address field's suggestions). */
export async function getPasskey(options: unknown, autofill = false): Promise<string> {
  const { startAuthentication } = await library();
  const answer = await startAuthentication({ optionsJSON: options as never, useBrowserAutofill: autofill });
  return JSON.stringify(answer);
}

/** Whether the browser can offer passkeys in autofill (false where it can not tell). */
export async function autofillAvailable(): Promise<boolean> {
  if (typeof window === 'undefined' || !('PublicKeyCredential' in window)) return false;
  const { browserSupportsWebAuthnAutofill } = await library();
  return browserSupportsWebAuthnAutofill().catch(() => false);
}

/** The person closed or cancelled the browser's prompt (nothing to report). */
export const isCancelled = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'NotAllowedError' ||
    error.name === 'AbortError' ||
    /ERROR_CEREMONY_ABORTED/.test(String((error as { code?: string }).code)));
