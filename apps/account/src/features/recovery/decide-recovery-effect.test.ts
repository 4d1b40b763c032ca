import { describe, expect, it } from 'vitest';
import type { RecoveryCommand, RecoveryEffectInput } from './decide-recovery-effect.ts';
import { decideRecoveryEffect, decideRecoveryResume, type RecoveryResume } from './decide-recovery-effect.ts';

const cases: [string, RecoveryEffectInput, RecoveryCommand][] = [
  ['no flow in the query: a fresh recovery flow', { query: {}, loadedFlowId: null }, { type: 'start-fresh' }],
  [
    'a recovery flow in the query is loaded',
    { query: { flow: 'r1' }, loadedFlowId: null },
    { type: 'load-flow', id: 'r1' },
  ],
  [
    'the recovery flow already loaded is not loaded again',
    { query: { flow: 'r1' }, loadedFlowId: 'r1' },
    { type: 'none' },
  ],
  [
    'another recovery flow in the query replaces the loaded one',
    { query: { flow: 'r2' }, loadedFlowId: 'r1' },
    { type: 'load-flow', id: 'r2' },
  ],
  [
    'a settings flow after the code is loaded (the Password step), before any recovery flow',
    { query: { flow: 'r1', profileFlow: 's1' }, loadedFlowId: 'r1' },
    { type: 'load-settings', id: 's1' },
  ],
];

describe('decideRecoveryEffect', () => {
  it.each(cases)('%s', (_name, input, expected) => {
    expect(decideRecoveryEffect(input)).toEqual(expected);
  });
});

describe('decideRecoveryResume', () => {
  it.each<[string, Parameters<typeof decideRecoveryResume>[0], RecoveryResume]>([
    [
      'a flow waiting for the email: shown',
      { flowState: 'choose_method', sessionAlreadyAvailable: false, resetInProgress: false },
      'show-flow',
    ],
    [
      'a flow waiting for the code: shown',
      { flowState: 'sent_email', sessionAlreadyAvailable: false, resetInProgress: true },
      'show-flow',
    ],
    [
      'a used flow (replayed from history): on to the Password step, not a form that cannot submit',
      { flowState: 'passed_challenge', sessionAlreadyAvailable: false, resetInProgress: false },
      'password-step',
    ],
    [
      'Back during the reset (the code signed the person in): on to the Password step',
      { flowState: null, sessionAlreadyAvailable: true, resetInProgress: true },
      'password-step',
    ],
    [
      'signed in without a reset in progress: "already signed in"',
      { flowState: null, sessionAlreadyAvailable: true, resetInProgress: false },
      'session-exists',
    ],
  ])('%s', (_label, input, expected) => {
    expect(decideRecoveryResume(input)).toBe(expected);
  });
});
