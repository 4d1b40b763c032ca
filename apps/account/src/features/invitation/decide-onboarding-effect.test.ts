import { describe, expect, it } from 'vitest';
import type { OnboardingCommand, OnboardingEffectInput } from './decide-onboarding-effect.ts';
import { decideOnboardingEffect, decideTotpEffect } from './decide-onboarding-effect.ts';

const base: OnboardingEffectInput = {
  view: 'loading',
  sessionState: 'none',
  query: { flow: 'f1', code: '123456' },
  link: 'unknown',
  hasSettings: false,
};

const cases: [string, Partial<OnboardingEffectInput>, OnboardingCommand][] = [
  [
    'no session and a link with a code: its public state is asked',
    {},
    { type: 'load-link-state', flow: 'f1' },
  ],
  ['the link state is asked only once', { link: 'pending' }, { type: 'none' }],
  ['a link without a code is not asked about', { query: { flow: 'f1' }, view: 'expired' }, { type: 'none' }],
  ['with a session the link is not asked about', { sessionState: 'present' }, { type: 'none' }],
  [
    'email: the code is submitted',
    { view: 'email', link: 'pending' },
    { type: 'submit-code', flow: 'f1', code: '123456' },
  ],
  [
    'email without a code: nothing to submit',
    { view: 'email', link: 'pending', query: {} },
    { type: 'none' },
  ],
  [
    'password: the settings flow the code led to is loaded',
    { view: 'password', sessionState: 'present', query: { profileFlow: 's1' } },
    { type: 'load-settings', profileFlow: 's1' },
  ],
  [
    'password without a settings flow id: a new one is created',
    { view: 'password', sessionState: 'present', query: {} },
    { type: 'load-settings', profileFlow: null },
  ],
  [
    'password with its settings flow: nothing to load',
    { view: 'password', sessionState: 'present', hasSettings: true },
    { type: 'none' },
  ],
  ['done: refresh, clear and go to login', { view: 'done', sessionState: 'present' }, { type: 'finish' }],
  ['mfa: the set-up hook runs its own effects', { view: 'mfa', sessionState: 'present' }, { type: 'none' }],
  ['terms: nothing runs until accepted', { view: 'terms', sessionState: 'present' }, { type: 'none' }],
  ['expired: nothing runs', { view: 'expired', link: 'expired' }, { type: 'none' }],
];

describe('decideOnboardingEffect', () => {
  it.each(cases)('%s', (_name, patch, expected) => {
    expect(decideOnboardingEffect({ ...base, ...patch })).toEqual(expected);
  });
});

describe('decideTotpEffect', () => {
  it.each([
    ['completed', { type: 'reload-session' }],
    ['form', { type: 'none' }],
    ['error', { type: 'none' }],
  ] as const)('%s', (status, expected) => {
    expect(decideTotpEffect(status)).toEqual(expected);
  });
});
