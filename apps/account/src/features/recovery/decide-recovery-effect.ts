// The recovery screen's effect as a pure function returning one command; use-recovery-effects.ts
// runs it. The query names the step's flow: a settings flow after the code, else a recovery flow,
// else none (a fresh recovery flow is created).

export interface RecoveryEffectInput {
  query: { flow?: string; profileFlow?: string };
  /** The id of the recovery flow already loaded, if any. */
  loadedFlowId: string | null;
}

export type RecoveryCommand =
  | { type: 'none' }
  | { type: 'load-settings'; id: string }
  | { type: 'load-flow'; id: string }
  | { type: 'start-fresh' };

export function decideRecoveryEffect(input: RecoveryEffectInput): RecoveryCommand {
  const { flow, profileFlow } = input.query;
  if (profileFlow) return { type: 'load-settings', id: profileFlow };
  if (flow) return input.loadedFlowId === flow ? { type: 'none' } : { type: 'load-flow', id: flow };
  return { type: 'start-fresh' };
}

export type RecoveryResume = 'show-flow' | 'password-step' | 'session-exists';

/**
 * A recovery that cannot go on as loaded. A used flow (`passed_challenge`: its code was accepted, e.g. a
 * flow replayed from the browser's history) and a fresh flow refused because the code already signed the
 * person in (Back during the reset) both go on at the Password step, through a new settings flow, so no
 * step is left without its form. A session outside a reset is "already signed in".
 */
export function decideRecoveryResume(input: {
  flowState: string | null;
  sessionAlreadyAvailable: boolean;
  resetInProgress: boolean;
}): RecoveryResume {
  if (input.flowState === 'passed_challenge') return 'password-step';
  if (input.sessionAlreadyAvailable) return input.resetInProgress ? 'password-step' : 'session-exists';
  return 'show-flow';
}
