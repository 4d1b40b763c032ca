import type { SessionFacts } from '../session/session-facts.ts';
import { mfaDeadlineInFuture, signedInWithOidc } from '../session/session-facts.ts';

// SPEC §4 "Authenticated":
// - the token's authentication mode is m365 (always authenticated); or
// - a session exists, and (oidc OR aal2 OR mfa setup deadline in the future)
//   AND terms accepted
//   AND (git step disabled OR not a git user OR git provider connected).

export interface AuthenticatedInput {
  tokenAuthMode: string | null;
  session: SessionFacts | null;
  disableGitStep: boolean;
  now: number;
}

export function isAuthenticated({
  tokenAuthMode,
  session,
  disableGitStep,
  now,
}: AuthenticatedInput): boolean {
  if (tokenAuthMode === 'm365') return true;
  if (!session) return false;
  const secondFactorOk =
    signedInWithOidc(session) || session.aal === 'aal2' || mfaDeadlineInFuture(session, now);
  const gitOk = disableGitStep || !session.isGitUser || session.gitProviderConnected;
  return secondFactorOk && session.tosAccepted && gitOk;
}
