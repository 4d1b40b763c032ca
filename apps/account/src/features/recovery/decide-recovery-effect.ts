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
