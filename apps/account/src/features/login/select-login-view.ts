import { copy } from '../../copy.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';
import type { LoginCommand } from './decide-login-effect.ts';
import type { LoginStep } from './select-login-step.ts';

// What the login screen shows: an error page, progress, or the selected step.

export type LoginView =
  | { kind: 'progress' }
  | { kind: 'error'; message: string; mode: 'retry' | 'login' }
  | { kind: 'step'; step: LoginStep; inert?: true };

export interface LoginViewInput {
  command: LoginCommand;
  sessionState: SessionState;
  sessionError: string | null;
  /** The step needs the login flow, which is still loading. */
  stepNeedsFlow: boolean;
  step: LoginStep;
}

/**
 * Commands during which the page stays put for now: the Email step (painted with the page itself)
 * stays on screen while the challenge is stored, the session checked or the authorization started,
 * rather than "Signing you in…" in its place and the step again after.
 */
const EMAIL_STEP_MEANWHILE: ReadonlySet<LoginCommand['type']> = new Set([
  'store-challenge',
  'wait',
  'authorize',
]);

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
  if (command.type !== 'none' && !(input.step === 'email' && EMAIL_STEP_MEANWHILE.has(command.type))) {
    return { kind: 'progress' };
  }
  // Shown while a command runs (the page may still leave for the authorization server): nothing can
  // be typed into it then, so nothing typed is lost when the page leaves.
  return command.type === 'none'
    ? { kind: 'step', step: input.step }
    : { kind: 'step', step: input.step, inert: true };
}
