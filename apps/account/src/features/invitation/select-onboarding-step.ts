import type { InvitationState } from '../../shared/users-client/users-client.ts';
import type { OnboardingState } from '../../shared/storage/registry.ts';
import type { SessionFacts, SessionState } from '../../shared/session/session-facts.ts';
import { hasSecondFactor, mfaDeadlineInFuture } from '../../shared/session/session-facts.ts';

// The invitation onboarding screen, its effects and the invitation link rules, as one
// pure function. The screen's view is derived from these inputs, never stored.

export type OnboardingView =
  'loading' | 'expired' | 'already-logged-in' | 'email' | 'password' | 'mfa' | 'terms' | 'done';

/** What is known about the invitation link: its public status, or what the identity service said. */
export type InvitationLinkState =
  | InvitationState
  | 'unknown' // not asked yet
  | 'not-found' // the status endpoint answered 404
  | 'unavailable'; // the status endpoint failed otherwise: the recovery flow decides

export interface OnboardingInput {
  query: { flow?: string; code?: string; profileFlow?: string };
  sessionState: SessionState;
  session: SessionFacts | null;
  state: OnboardingState | null;
  link: InvitationLinkState;
  /** The recovery flow answered 404/410, or the code was refused. */
  codeRejected: boolean;
  mfaCompleted: boolean;
  mfaSkipped: boolean;
}

export function selectOnboardingView(input: OnboardingInput): OnboardingView {
  const { state, session } = input;
  if (input.codeRejected) return 'expired';
  if (input.sessionState === 'loading') return 'loading';
  // Terms accepted: refresh the session, clear the state, go to login.
  if (state?.isSessionRefreshRequired) return 'done';
  if (input.sessionState === 'present' && session) {
    if (!state?.codeSubmitted) return 'already-logged-in';
    // Email moves to Password once the code has been submitted; Password to MFA once it is set.
    if (!state.passwordSet) return 'password';
    // 2FA unless the session has a factor, it was just set up, or it was skipped (skipping is offered
    // only while the setup deadline lies ahead).
    if (!hasSecondFactor(session) && !input.mfaCompleted && !input.mfaSkipped) return 'mfa';
    if (!session.tosAccepted) return 'terms';
    return 'done';
  }
  // A session that needs its second factor belongs to someone who is signed in already.
  if (input.sessionState === 'requires-mfa') return 'already-logged-in';
  if (input.sessionState === 'error') return 'loading';
  // No session: a link without a code (or flow) has expired.
  if (!input.query.code || !input.query.flow) return 'expired';
  switch (input.link) {
    case 'unknown':
      return 'loading';
    case 'pending':
    case 'unavailable':
      return 'email';
    default:
      // expired, revoked, accepted (used) or unknown link.
      return 'expired';
  }
}

/** "Skip for now" is offered only while the second-factor setup deadline lies in the future. */
export function canSkipMfa(session: SessionFacts | null, now: number): boolean {
  return session !== null && mfaDeadlineInFuture(session, now);
}

/** The step indicator's current index: Email, Password, 2FA, Terms. */
export function stepIndex(view: OnboardingView): number {
  switch (view) {
    case 'password':
      return 1;
    case 'mfa':
      return 2;
    case 'terms':
    case 'done':
      return 3;
    default:
      return 0;
  }
}
