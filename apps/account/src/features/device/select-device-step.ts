// "Connect a device" (RFC 8628 device sign-in): which step the page shows for its query, how a
// typed code is shown, and what a refused code means. Pure; the screen and hook act on these.

export interface DeviceSearch {
  user_code?: string;
  device_challenge?: string;
  /** The device client's login request (the authorization server sends it to the device page). */
  login_challenge?: string;
  consent_challenge?: string;
  status?: string;
  error?: string;
}

type DeviceFailure = 'expired' | 'used' | 'denied' | 'invalid';

export type DeviceStep =
  /** No challenge yet: the authorization server hands one out (302 back here). */
  | { type: 'fetch-challenge'; prefill: string | null }
  | { type: 'enter-code'; deviceChallenge: string }
  /** The code was accepted: the person signs in (Microsoft 365 here, or the login page). */
  | { type: 'login'; loginChallenge: string }
  | { type: 'consent'; consentChallenge: string }
  | { type: 'approved' }
  | { type: 'failed'; reason: DeviceFailure };

const FAILURES: readonly DeviceFailure[] = ['expired', 'used', 'denied', 'invalid'];

export function selectDeviceStep(search: DeviceSearch): DeviceStep {
  if (search.status === 'approved') return { type: 'approved' };
  if (search.error !== undefined) {
    const reason = FAILURES.find((f) => f === search.error) ?? 'invalid';
    return { type: 'failed', reason };
  }
  if (search.consent_challenge) return { type: 'consent', consentChallenge: search.consent_challenge };
  if (search.login_challenge) return { type: 'login', loginChallenge: search.login_challenge };
  if (search.device_challenge) return { type: 'enter-code', deviceChallenge: search.device_challenge };
  const prefill = search.user_code ? formatUserCode(search.user_code) : '';
  return { type: 'fetch-challenge', prefill: prefill || null };
}

/** The user code's length without its hyphen (`WDJB-MJHT`). */
const USER_CODE_LENGTH = 8;

/**
 * What the code field shows for what was typed or pasted: upper case, letters and digits only,
 * at most 8 of them, with the hyphen after the fourth (typing it is optional).
 */
export function formatUserCode(raw: string): string {
  const chars = raw
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, USER_CODE_LENGTH);
  return chars.length > 4 ? `${chars.slice(0, 4)}-${chars.slice(4)}` : chars;
}

export function isCompleteUserCode(formatted: string): boolean {
  return formatted.replace('-', '').length === USER_CODE_LENGTH;
}

export type DeviceCodeRefusal =
  | { type: 'retry'; reason: 'invalid' | 'rate-limited' }
  | { type: 'failed'; reason: DeviceFailure }
  /** The page's challenge is gone: fetch a new one, keeping the typed code. */
  | { type: 'restart' };

/** The user service's answer to a refused code (`errorCode`), as the page handles it. */
export function decideDeviceCodeRefusal(errorCode: unknown): DeviceCodeRefusal {
  switch (errorCode) {
    case 'DEVICE_CODE_EXPIRED':
      return { type: 'failed', reason: 'expired' };
    case 'DEVICE_CODE_USED':
      return { type: 'failed', reason: 'used' };
    case 'DEVICE_REQUEST_NOT_FOUND':
      return { type: 'restart' };
    case 'RATE_LIMITED':
      return { type: 'retry', reason: 'rate-limited' };
    default:
      return { type: 'retry', reason: 'invalid' };
  }
}

export type DeviceLoginCommand =
  /** Accept the login with the person's Microsoft 365 sign-in (their token from `/m365/login`). */
  | { type: 'm365-accept' }
  /** Any other sign-in: the login page, which comes back here for Microsoft 365 (see below). */
  | { type: 'go-login' };

/**
 * How the device page signs the person in for a device's login request: with the Microsoft 365
 * sign-in this application holds, else on the login page (every method the application allows;
 * an m365 address there goes to the m365 sign-in, or, where the application has none, to MAGIC's
 * device page with the same login request).
 */
export function decideDeviceLogin(input: { m365SignIn: boolean; hasM365Token: boolean }): DeviceLoginCommand {
  return input.m365SignIn && input.hasM365Token ? { type: 'm365-accept' } : { type: 'go-login' };
}
