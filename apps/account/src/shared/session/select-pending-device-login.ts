// Device sign-in (RFC 8628): the device client's login request that a login page is continuing.

/**
 * The one this tab's device page handed over (`deviceLoginChallenge`), while it is still the login
 * page's stored challenge: a later, ordinary login ignores it. The login page's Microsoft 365 way
 * out (Platform → MAGIC's device page) and MAGIC's m365 sign-in come back to the device page with it.
 */
export function selectPendingDeviceLogin(
  deviceLoginChallenge: string | null,
  storedLoginChallenge: string | null,
): string | null {
  return deviceLoginChallenge !== null && deviceLoginChallenge === storedLoginChallenge
    ? deviceLoginChallenge
    : null;
}
