import { describe, expect, it } from 'vitest';
import type { FinalStepContinue, FinalStepInput } from './decide-final-step-continue.ts';
import { decideFinalStepContinue } from './decide-final-step-continue.ts';

describe('decideFinalStepContinue (without an identity token: a popup sign-in if errors are muted, else a silent one)', () => {
  const cases: [string, FinalStepInput, FinalStepContinue][] = [
    [
      'no account, nothing failed yet → the silent sign-in',
      { isTeams: false, hasAccount: false, errorsMuted: false },
      { type: 'sign-in', kind: 'silent' },
    ],
    [
      'no account, a silent attempt failed (errors muted) → a popup',
      { isTeams: false, hasAccount: false, errorsMuted: true },
      { type: 'sign-in', kind: 'popup' },
    ],
    [
      'signed in → tokens and activation (no sign-in)',
      { isTeams: false, hasAccount: true, errorsMuted: true },
      { type: 'activate' },
    ],
    [
      'inside Teams → the host token again, never an MSAL interaction',
      { isTeams: true, hasAccount: false, errorsMuted: false },
      { type: 'teams-token' },
    ],
    [
      'inside Teams with errors muted → still the host token',
      { isTeams: true, hasAccount: false, errorsMuted: true },
      { type: 'teams-token' },
    ],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(decideFinalStepContinue(input)).toEqual(expected);
  });
});
