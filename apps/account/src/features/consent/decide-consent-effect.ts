import { MISSING_SESSION_RETRIES } from '../../constants.ts';
import { NETWORK_NOT_TRUSTED } from '@acme/users-contract/networks';
import { TERMS_NOT_ACCEPTED } from '@acme/users-contract/sign-in';
import { copy } from '../../copy.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';

// Consent: with the challenge and a session, read what the consent asks for; the platform's own
// applications (and one already allowed these scopes) are accepted at once, any other application
// waits for the person's Allow or Deny. With no session, retry login once
// (missing_session_retried), then fail.

/** What is known of the consent request: not read yet, being read, or read. */
export type ConsentScreenState =
  { state: 'unread' } | { state: 'reading' } | { state: 'read'; needsConsent: boolean };

export interface ConsentInput {
  challenge: string | null;
  sessionState: SessionState;
  sessionId: string | null;
  /** Missing-session retries already made (the `missing_session_retried` flag: 0 or 1). */
  retries: number;
  screen: ConsentScreenState;
}

export type ConsentCommand =
  | { type: 'wait' }
  | { type: 'read-request'; consentChallenge: string }
  | { type: 'accept'; consentChallenge: string; identitySessionId: string }
  /** Show the consent screen: the person answers with Allow or Deny. */
  | { type: 'ask'; consentChallenge: string; identitySessionId: string }
  | { type: 'retry-login' }
  | { type: 'error'; message: string };

export function decideConsentEffect(input: ConsentInput): ConsentCommand {
  if (!input.challenge) return { type: 'error', message: copy.errors.missingConsentChallenge };
  if (input.sessionState === 'loading') return { type: 'wait' };
  if (input.sessionState === 'present' && input.sessionId) {
    const ids = { consentChallenge: input.challenge, identitySessionId: input.sessionId };
    if (input.screen.state === 'unread') return { type: 'read-request', consentChallenge: input.challenge };
    if (input.screen.state === 'reading') return { type: 'wait' };
    return input.screen.needsConsent ? { type: 'ask', ...ids } : { type: 'accept', ...ids };
  }
  if (input.retries < MISSING_SESSION_RETRIES) return { type: 'retry-login' };
  return { type: 'error', message: copy.errors.missingSession };
}

export type ConsentFailureCommand =
  { type: 'login-2fa-reset' } | { type: 'terms' } | { type: 'error'; message: string };

/**
 * A refused consent. The user service refuses a password session whose second-factor grace period
 * is over: the login screen then shows the 2FA reset for that session, as the callback does. It
 * refuses someone who never accepted the terms: the Terms step shows here, then consent is asked
 * again. Anything else is the consent-flow error. */
export function decideConsentFailure(failure: {
  status?: number;
  errorCode?: unknown;
}): ConsentFailureCommand {
  if (failure.status === 403 && failure.errorCode === 'SECOND_FACTOR_REQUIRED')
    return { type: 'login-2fa-reset' };
  if (failure.status === 403 && failure.errorCode === TERMS_NOT_ACCEPTED) return { type: 'terms' };
  if (failure.status === 403 && failure.errorCode === NETWORK_NOT_TRUSTED)
    return { type: 'error', message: copy.errors.networkNotTrusted };
  return { type: 'error', message: copy.errors.consentFlow };
}
