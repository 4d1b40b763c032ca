import type { LoginStep } from './select-login-step.ts';

// Whether the Password confirmation step also offers "Use a passkey". The identity service puts a
// passkey challenge in a signed-in person's refresh flow only when that person has a passkey (their
// own keys only), so the offer follows the flow; never inside the Teams frame or without WebAuthn.

export interface ConfirmationPasskeyInput {
  step: LoginStep;
  /** WebAuthn in this browser, and not inside the Teams frame. */
  available: boolean;
  /** The current (refresh) flow carries a passkey challenge. */
  hasChallenge: boolean;
}

export function decideConfirmationPasskey(input: ConfirmationPasskeyInput): boolean {
  return input.step === 'password-confirmation' && input.available && input.hasChallenge;
}
