import { describe, expect, it } from 'vitest';
import type { RecoveryCommand, RecoveryEffectInput } from './decide-recovery-effect.ts';
import { decideRecoveryEffect } from './decide-recovery-effect.ts';

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
