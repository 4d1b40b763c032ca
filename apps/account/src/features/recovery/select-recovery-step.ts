// SPEC §4 Recovery: the server knows the step. choose_method → Email, sent_email → Code,
// profileFlow (a settings flow after the code) → Password. An existing session makes recovery impossible.

export type RecoveryStep = 'loading' | 'session-exists' | 'email' | 'code' | 'password';

export interface RecoveryStepInput {
  sessionExists: boolean;
  profileFlow: boolean;
  flowState: string | null;
}

export function selectRecoveryStep(input: RecoveryStepInput): RecoveryStep {
  if (input.profileFlow) return 'password';
  if (input.sessionExists) return 'session-exists';
  switch (input.flowState) {
    case null:
      return 'loading';
    case 'sent_email':
      return 'code';
    case 'passed_challenge':
      return 'password';
    default:
      return 'email';
  }
}
