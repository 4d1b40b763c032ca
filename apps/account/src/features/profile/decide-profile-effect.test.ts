import { describe, expect, it } from 'vitest';
import type { ProfileCommand, ProfileInput } from './decide-profile-effect.ts';
import { decideProfileEffect } from './decide-profile-effect.ts';

const base: ProfileInput = {
  flowId: 'sf-1',
  sessionState: 'present',
  sessionMethods: ['password'],
  authenticated: false,
  onboardingCodeSubmitted: false,
  mfaSetupInitialised: false,
};

const cases: [string, Partial<ProfileInput>, ProfileCommand][] = [
  ['waits for the session', { sessionState: 'loading' }, { type: 'wait' }],
  [
    'MFA step required → request the settings flow',
    { sessionState: 'requires-mfa' },
    { type: 'request-settings-flow' },
  ],
  [
    'onboarding code submitted → resume onboarding',
    { onboardingCodeSubmitted: true },
    { type: 'go', to: '/account/onboarding?profileFlow=sf-1' },
  ],
  [
    'MFA setup initialised → resume MFA setup',
    { mfaSetupInitialised: true },
    { type: 'go', to: '/account/mfa-setup?profileFlow=sf-1' },
  ],
  [
    'code-recovery session → forgot-password',
    { sessionMethods: ['code_recovery'] },
    { type: 'go', to: '/account/forgot-password?profileFlow=sf-1' },
  ],
  [
    'authenticated → remove the token and go to login',
    { authenticated: true },
    { type: 'remove-token-and-login' },
  ],
  ['otherwise → login with profileFlow', {}, { type: 'go', to: '/account/login?profileFlow=sf-1' }],
  [
    'otherwise without a flow → login',
    { flowId: null, sessionState: 'none', sessionMethods: [] },
    { type: 'go', to: '/account/login' },
  ],
];

describe('decideProfileEffect', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideProfileEffect({ ...base, ...overrides })).toEqual(expected);
  });
});
