import { describe, expect, it } from 'vitest';
import { selectRecoveryStep } from './select-recovery-step.ts';

describe('selectRecoveryStep', () => {
  it.each([
    [
      'choose_method → email',
      { sessionExists: false, profileFlow: false, flowState: 'choose_method' },
      'email',
    ],
    ['sent_email → code', { sessionExists: false, profileFlow: false, flowState: 'sent_email' }, 'code'],
    ['profileFlow → password', { sessionExists: true, profileFlow: true, flowState: null }, 'password'],
    [
      'passed_challenge → password',
      { sessionExists: false, profileFlow: false, flowState: 'passed_challenge' },
      'password',
    ],
    [
      'a session without profileFlow → recovery impossible',
      { sessionExists: true, profileFlow: false, flowState: 'choose_method' },
      'session-exists',
    ],
    ['no flow yet → loading', { sessionExists: false, profileFlow: false, flowState: null }, 'loading'],
    [
      'profileFlow, second factor owed (a user with 2FA) → mfa before the password',
      { sessionExists: false, profileFlow: true, secondFactorDue: true, flowState: null },
      'mfa',
    ],
    [
      'profileFlow, second factor given → password',
      { sessionExists: false, profileFlow: true, secondFactorDue: false, flowState: 'profile' },
      'password',
    ],
  ] as const)('%s', (_name, input, expected) => {
    expect(selectRecoveryStep(input)).toBe(expected);
  });
});
