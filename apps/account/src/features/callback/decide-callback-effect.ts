import { AUTHORIZATION_CODE_PREFIX } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { validateCallback } from '../../shared/oauth2/callback-validation.ts';
import { isAuthenticated } from '../../shared/session/is-authenticated.ts';
import type { SessionFacts, SessionState } from '../../shared/session/session-facts.ts';
import { hasSecondFactor, mfaDeadlineInFuture, signedInBySso } from '../../shared/session/session-facts.ts';

// The callback's effects as a pure function returning one command.

export interface CallbackInput {
  query: { code?: string; state?: string; error?: string; error_description?: string };
  storedState: string | null;
  sessionState: SessionState;
  session: SessionFacts | null;
  isSsoEmailResult: boolean;
  hasToken: boolean;
  now: number;
}

export type CallbackCommand =
  | { type: 'wait' }
  | { type: 'error'; message: string }
  | { type: 'login-2fa-reset' }
  | { type: 'authorize' }
  | { type: 'exchange'; code: string }
  | { type: 'git-complete'; code: string; state?: string }
  | { type: 'git-failed'; message: string }
  | { type: 'go-initial-page' };

/** A code that does not start with "ory" comes from the source-code host. */
function isSourceCodeHostCode(code: string): boolean {
  return !code.toLowerCase().startsWith(AUTHORIZATION_CODE_PREFIX);
}

export function decideCallbackEffect(input: CallbackInput): CallbackCommand {
  if (input.sessionState === 'loading') return { type: 'wait' };
  const { query, session } = input;
  if (query.error) {
    const message = copy.errors.oauth2(query.error, query.error_description ?? '');
    // The source-code host answered the link step with an error (e.g. the user cancelled): the token
    // is there and the state is the host's, not ours. Show it; the link step starts over.
    if (input.hasToken && query.state && query.state !== input.storedState)
      return { type: 'git-failed', message };
    return { type: 'error', message };
  }
  if (!query.code) {
    // Reached from the login screen with a session but no token: obtain one.
    if (input.hasToken) return { type: 'go-initial-page' };
    if (input.sessionState === 'present') return { type: 'authorize' };
    return { type: 'error', message: copy.errors.missingCode };
  }
  // An aal1 session of a non-SSO user without a second factor (and past the setup grace period)
  // goes back to login for a 2FA reset.
  if (
    session &&
    session.aal === 'aal1' &&
    !hasSecondFactor(session) &&
    !signedInBySso(session) &&
    !input.isSsoEmailResult &&
    !mfaDeadlineInFuture(session, input.now)
  ) {
    return { type: 'login-2fa-reset' };
  }
  // The source-code host's authorize page returned here (onboarding stepper, link step).
  if (isSourceCodeHostCode(query.code)) {
    return query.state
      ? { type: 'git-complete', code: query.code, state: query.state }
      : { type: 'git-complete', code: query.code };
  }
  const validation = validateCallback(query, input.storedState);
  if (!validation.ok) {
    // A second run of an already-exchanged callback (reload, other tab): the token is there.
    if (input.hasToken) return { type: 'go-initial-page' };
    return { type: 'error', message: validation.message };
  }
  return { type: 'exchange', code: validation.code };
}

export type OnboardingStep = 'git' | 'tos';

export type AfterExchangeCommand =
  { type: 'onboarding'; steps: OnboardingStep[] } | { type: 'go-initial-page' };

export interface AfterExchangeInput {
  session: SessionFacts | null;
  disableGitStep: boolean;
  tokenAuthMode: string | null;
  now: number;
}

/**
 * Onboarding steps still due: link the source-code host (a git user not yet
 * connected, unless the step is disabled), then Terms of Service (not accepted). An authenticated
 * user goes to the initial page.
 */
export function decideAfterExchange(input: AfterExchangeInput): AfterExchangeCommand {
  const { session, disableGitStep } = input;
  if (!session || isAuthenticated(input)) return { type: 'go-initial-page' };
  const steps: OnboardingStep[] = [];
  if (!disableGitStep && session.isGitUser && !session.gitProviderConnected) steps.push('git');
  if (!session.tosAccepted) steps.push('tos');
  return steps.length ? { type: 'onboarding', steps } : { type: 'go-initial-page' };
}
