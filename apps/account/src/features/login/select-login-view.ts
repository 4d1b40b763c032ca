import { copy } from '../../copy.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';
import type { LoginCommand } from './decide-login-effect.ts';
import type { LoginStep } from './select-login-step.ts';

// What the login screen shows: an error page, progress, or the selected step.

export type LoginView =
  | { kind: 'progress' }
  | { kind: 'error'; message: string; mode: 'retry' | 'login' }
  | { kind: 'step'; step: LoginStep };

export interface LoginViewInput {
  command: LoginCommand;
  sessionState: SessionState;
  sessionError: string | null;
  /** The step needs the login flow, which is still loading. */
  stepNeedsFlow: boolean;
  step: LoginStep;
  /** A login challenge is stored: the page will not leave to start an authorization. */
  challengePending: boolean;
}

/**
 * The page has its login challenge and stays put: the Email step (painted with the page itself) stays
 * on screen while the challenge is stored or the session checked, rather than "Signing you in…" in
 * its place and the step again after. Without a challenge the page is about to leave for the
 * authorization server, and what someone typed would be lost: progress, as before.
 */
function emailStepMeanwhile(input: LoginViewInput): boolean {
  if (input.step !== 'email') return false;
  if (input.command.type === 'store-challenge') return true;
  return input.command.type === 'wait' && input.challengePending && input.sessionState === 'loading';
}

export function selectLoginView(input: LoginViewInput): LoginView {
  const { command } = input;
  if (command.type === 'oauth2-error') {
    return { kind: 'error', message: copy.errors.oauth2(command.code, command.description), mode: 'login' };
  }
  if (input.sessionState === 'error') {
    const message = copy.errors.loadingSession(input.sessionError ?? copy.errors.unknown);
    return { kind: 'error', message, mode: 'retry' };
  }
  if (input.stepNeedsFlow) return { kind: 'progress' };
  if (command.type !== 'none' && !emailStepMeanwhile(input)) return { kind: 'progress' };
  return { kind: 'step', step: input.step };
}
