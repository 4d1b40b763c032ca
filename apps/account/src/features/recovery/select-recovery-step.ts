// Recovery: the server knows the step. choose_method → Email, sent_email → Code, profileFlow (a
// settings flow after the code) → Password, or first the 2FA code when the user has a second factor
// (the settings flow then answers 403 session_aal2_required). An existing session makes recovery
// impossible.

export type RecoveryStep = 'loading' | 'session-exists' | 'email' | 'code' | 'mfa' | 'password';

export interface RecoveryStepInput {
  sessionExists: boolean;
  profileFlow: boolean;
  /** After the code, the settings flow asked for the second factor first (a user with 2FA). */
  secondFactorDue?: boolean;
  flowState: string | null;
}

export function selectRecoveryStep(input: RecoveryStepInput): RecoveryStep {
  if (input.profileFlow) return input.secondFactorDue ? 'mfa' : 'password';
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
