import type { SessionFacts } from './session-facts.ts';
import { mfaDeadlineInFuture, signedInBySso } from './session-facts.ts';

// Authenticated when:
// - the token's authentication mode is m365 (always authenticated); or
// - a session exists, and (oidc OR aal2 OR mfa setup deadline in the future)
//   AND terms accepted
//   AND (git step disabled OR not a git user OR git provider connected).
// One function, used by the login effects, the callback and the access guard.

export interface AuthenticatedInput {
  tokenAuthMode: string | null;
  session: SessionFacts | null;
  disableGitStep: boolean;
  now: number;
}

/** The second-factor clause: signed in via oidc, reached aal2, or still inside the setup grace period. */
function secondFactorSatisfied(session: SessionFacts, now: number): boolean {
  return signedInBySso(session) || session.aal === 'aal2' || mfaDeadlineInFuture(session, now);
}

/** The source-code-host clause: the step is disabled, the user is not a git user, or is connected. */
function gitSatisfied(session: SessionFacts, disableGitStep: boolean): boolean {
  return disableGitStep || !session.isGitUser || session.gitProviderConnected;
}

export function isAuthenticated({
  tokenAuthMode,
  session,
  disableGitStep,
  now,
}: AuthenticatedInput): boolean {
  if (tokenAuthMode === 'm365') return true;
  if (!session) return false;
  return secondFactorSatisfied(session, now) && session.tosAccepted && gitSatisfied(session, disableGitStep);
}

/**
 * A session that passed its second-factor clause but still owes onboarding steps (link the
 * source-code host, accept the terms): the callback's onboarding stepper finishes it.
 */
export function onboardingDue({ tokenAuthMode, session, disableGitStep, now }: AuthenticatedInput): boolean {
  if (tokenAuthMode === 'm365' || !session) return false;
  return (
    secondFactorSatisfied(session, now) && !(session.tosAccepted && gitSatisfied(session, disableGitStep))
  );
}
