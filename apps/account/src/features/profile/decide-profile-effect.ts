import { paths, withQuery } from '../../shared/config/paths.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';

// Profile redirect screen: no UI, it only routes the user.

export interface ProfileInput {
  /** The settings flow id (`flow` from the identity service, or `profileFlow`). */
  flowId: string | null;
  sessionState: SessionState;
  sessionMethods: string[];
  authenticated: boolean;
  onboardingCodeSubmitted: boolean;
  mfaSetupInitialised: boolean;
}

export type ProfileCommand =
  | { type: 'wait' }
  | { type: 'request-settings-flow' }
  | { type: 'go'; to: string }
  | { type: 'remove-token-and-login' };

export function decideProfileEffect(input: ProfileInput): ProfileCommand {
  const profileFlow = input.flowId ?? undefined;
  if (input.sessionState === 'loading') return { type: 'wait' };
  // An MFA step is required: request the settings flow; its 403 carries the redirect target.
  if (input.sessionState === 'requires-mfa') return { type: 'request-settings-flow' };
  if (input.onboardingCodeSubmitted) return { type: 'go', to: withQuery(paths.onboarding, { profileFlow }) };
  if (input.mfaSetupInitialised) return { type: 'go', to: withQuery(paths.mfaSetup, { profileFlow }) };
  if (input.sessionMethods.includes('code_recovery')) {
    return { type: 'go', to: withQuery(paths.forgotPassword, { profileFlow }) };
  }
  if (input.authenticated) return { type: 'remove-token-and-login' };
  return { type: 'go', to: withQuery(paths.login, { profileFlow }) };
}
