import type { SessionState } from '../../shared/session/session-facts.ts';
import type { TotpSetupStatus } from '../../shared/totp/use-totp-setup.ts';
import type { InvitationLinkState, OnboardingView } from './select-onboarding-step.ts';

// The onboarding screen's effects as pure functions returning one command each;
// use-onboarding-effects.ts runs them.

export interface OnboardingEffectInput {
  view: OnboardingView;
  sessionState: SessionState;
  query: { flow?: string; code?: string; profileFlow?: string };
  link: InvitationLinkState;
  /** The password step's settings flow is loaded. */
  hasSettings: boolean;
}

export type OnboardingCommand =
  | { type: 'none' }
  | { type: 'load-link-state'; flow: string }
  | { type: 'submit-code'; flow: string; code: string }
  | { type: 'load-settings'; profileFlow: string | null }
  | { type: 'finish' };

export function decideOnboardingEffect(input: OnboardingEffectInput): OnboardingCommand {
  const { flow, code, profileFlow } = input.query;
  // The public state of the link, asked only when there is no session and the link has a code.
  if (input.sessionState === 'none' && flow && code && input.link === 'unknown') {
    return { type: 'load-link-state', flow };
  }
  switch (input.view) {
    // Email: the invitation code is submitted automatically, once, under a lock (method code).
    case 'email':
      return flow && code ? { type: 'submit-code', flow, code } : { type: 'none' };
    // Password: the settings flow the code led to (or a new one when it is gone).
    case 'password':
      return input.hasSettings
        ? { type: 'none' }
        : { type: 'load-settings', profileFlow: profileFlow ?? null };
    // Done: refresh the session (the identity now says tosAccepted), clear the state, go to login.
    case 'done':
      return { type: 'finish' };
    default:
      return { type: 'none' };
  }
}

export type TotpCommand = { type: 'none' } | { type: 'reload-session' };

/** A completed 2FA set-up reloads the session once (it now has a second factor). */
export function decideTotpEffect(totpStatus: TotpSetupStatus): TotpCommand {
  return totpStatus === 'completed' ? { type: 'reload-session' } : { type: 'none' };
}
