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

/** The settings flow id after a correct code: from the 422 redirect (`?flow=`) or continue_with. */
export function settingsFlowIdFrom(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as {
    redirect_browser_to?: unknown;
    continue_with?: { action?: string; flow?: { id?: string } }[];
  };
  const fromContinue = b.continue_with?.find((c) => c.action === 'show_settings_ui')?.flow?.id;
  if (fromContinue) return fromContinue;
  if (typeof b.redirect_browser_to === 'string') {
    try {
      return new URL(b.redirect_browser_to).searchParams.get('flow');
    } catch {
      return null;
    }
  }
  return null;
}
