import { describe, expect, it } from 'vitest';
import { facts, NOW, PAST } from '../../testing/fixtures.ts';
import type { OnboardingInput, OnboardingView } from './select-onboarding-step.ts';
import { canSkipMfa, selectOnboardingView, stepIndex } from './select-onboarding-step.ts';

const link = { flow: 'rec-1', code: '123456' };
const started = { codeSubmitted: true, passwordSet: false, isSessionRefreshRequired: false };
const passwordSet = { ...started, passwordSet: true };
const invited = facts({ methods: ['code_recovery'], tosAccepted: false });

const base: OnboardingInput = {
  query: link,
  sessionState: 'none',
  session: null,
  state: null,
  link: 'pending',
  codeRejected: false,
  mfaCompleted: false,
  mfaSkipped: false,
};

const cases: [string, Partial<OnboardingInput>, OnboardingView][] = [
  ['waits for the session', { sessionState: 'loading' }, 'loading'],
  ['a pending link without a session → Email (the code is submitted)', {}, 'email'],
  ['waits for the link status', { link: 'unknown' }, 'loading'],
  ['a status failure lets the recovery flow decide', { link: 'unavailable' }, 'email'],
  ['no code and no session → Link expired', { query: { flow: 'rec-1' } }, 'expired'],
  ['no flow and no session → Link expired', { query: { code: '123456' } }, 'expired'],
  ['an expired invitation → Link expired', { link: 'expired' }, 'expired'],
  ['a revoked invitation → Link expired', { link: 'revoked' }, 'expired'],
  ['an accepted (used) invitation → Link expired', { link: 'accepted' }, 'expired'],
  ['an unknown link (404) → Link expired', { link: 'not-found' }, 'expired'],
  ['the recovery flow answered 404/410 → Link expired', { codeRejected: true }, 'expired'],
  [
    'a session without onboarding state → already logged in',
    { sessionState: 'present', session: facts() },
    'already-logged-in',
  ],
  [
    'a session that needs its second factor → already logged in',
    { sessionState: 'requires-mfa' },
    'already-logged-in',
  ],
  [
    'code submitted → Password',
    { sessionState: 'present', session: invited, state: started, query: { profileFlow: 's-1' } },
    'password',
  ],
  [
    'password set, no second factor → 2FA',
    { sessionState: 'present', session: invited, state: passwordSet },
    'mfa',
  ],
  [
    '2FA skipped, terms not accepted → Terms',
    { sessionState: 'present', session: invited, state: passwordSet, mfaSkipped: true },
    'terms',
  ],
  [
    '2FA set up, terms not accepted → Terms',
    { sessionState: 'present', session: invited, state: passwordSet, mfaCompleted: true },
    'terms',
  ],
  [
    'a session with a second factor skips 2FA → Terms',
    {
      sessionState: 'present',
      session: facts({ aal: 'aal2', methods: ['code_recovery', 'totp'], tosAccepted: false }),
      state: passwordSet,
    },
    'terms',
  ],
  [
    'everything done → done',
    { sessionState: 'present', session: facts(), state: passwordSet, mfaSkipped: true },
    'done',
  ],
  [
    'terms accepted, session refresh required → done',
    {
      sessionState: 'present',
      session: invited,
      state: { ...passwordSet, isSessionRefreshRequired: true },
    },
    'done',
  ],
  [
    'onboarding state but the session is gone, no code → Link expired',
    { state: started, query: { profileFlow: 's-1' } },
    'expired',
  ],
];

describe('selectOnboardingView', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(selectOnboardingView({ ...base, ...overrides })).toBe(expected);
  });
});

describe('canSkipMfa', () => {
  it.each([
    ['deadline in the future → skippable', facts(), true],
    ['deadline passed → not skippable', facts({ mfaSetupDeadline: PAST }), false],
    ['no deadline → not skippable', facts({ mfaSetupDeadline: null }), false],
    ['no session → not skippable', null, false],
  ] as const)('%s', (_name, session, expected) => {
    expect(canSkipMfa(session, NOW)).toBe(expected);
  });
});

describe('stepIndex (Email, Password, 2FA, Terms)', () => {
  it.each([
    ['email', 0],
    ['loading', 0],
    ['password', 1],
    ['mfa', 2],
    ['terms', 3],
  ] as const)('%s → %i', (view, index) => {
    expect(stepIndex(view)).toBe(index);
  });
});
