import { describe, expect, it } from 'vitest';
import { facts, NOW, PAST } from '../../testing/fixtures.ts';
import type { AuthenticatedInput } from './is-authenticated.ts';
import { isAuthenticated, onboardingDue } from './is-authenticated.ts';

const noFactor = facts({ mfaSetupDeadline: PAST });
const base: AuthenticatedInput = { tokenAuthMode: null, session: facts(), disableGitStep: false, now: NOW };

const cases: [string, Partial<AuthenticatedInput>, boolean][] = [
  ['m365 token mode is always authenticated', { tokenAuthMode: 'm365', session: null }, true],
  ['no session → not authenticated', { session: null }, false],
  ['ory token mode without a session → not authenticated', { tokenAuthMode: 'ory', session: null }, false],
  [
    'oidc sign-in satisfies the second-factor clause',
    { session: facts({ methods: ['oidc'], mfaSetupDeadline: PAST }) },
    true,
  ],
  [
    'saml sign-in satisfies the second-factor clause (SSO too)',
    { session: facts({ methods: ['saml'], mfaSetupDeadline: PAST }) },
    true,
  ],
  [
    'aal2 satisfies the second-factor clause',
    { session: facts({ aal: 'aal2', mfaSetupDeadline: null }) },
    true,
  ],
  ['a future mfa setup deadline satisfies it', { session: facts() }, true],
  ['a past deadline, aal1, no oidc → not authenticated', { session: noFactor }, false],
  ['no deadline, aal1, no oidc → not authenticated', { session: facts({ mfaSetupDeadline: null }) }, false],
  ['an invalid deadline does not count', { session: facts({ mfaSetupDeadline: 'soon' }) }, false],
  ['terms not accepted → not authenticated', { session: facts({ tosAccepted: false }) }, false],
  ['git user not connected → not authenticated', { session: facts({ isGitUser: true }) }, false],
  [
    'git user connected → authenticated',
    { session: facts({ isGitUser: true, gitProviderConnected: true }) },
    true,
  ],
  [
    'git user not connected but git step disabled → authenticated',
    { session: facts({ isGitUser: true }), disableGitStep: true },
    true,
  ],
  ['not a git user → authenticated', { session: facts({ isGitUser: false }) }, true],
];

describe('isAuthenticated', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(isAuthenticated({ ...base, ...overrides })).toBe(expected);
  });
});

describe('onboardingDue (the callback stepper finishes these sessions)', () => {
  it.each([
    ['authenticated → nothing due', {}, false],
    ['terms not accepted → due', { session: facts({ tosAccepted: false }) }, true],
    ['git user not connected → due', { session: facts({ isGitUser: true }) }, true],
    ['git step disabled → nothing due', { session: facts({ isGitUser: true }), disableGitStep: true }, false],
    [
      'second-factor clause failing → not due (2FA first)',
      { session: facts({ tosAccepted: false, mfaSetupDeadline: PAST }) },
      false,
    ],
    ['no session → not due', { session: null }, false],
    ['m365 → not due', { tokenAuthMode: 'm365', session: facts({ tosAccepted: false }) }, false],
  ] as [string, Partial<AuthenticatedInput>, boolean][])('%s', (_name, overrides, expected) => {
    expect(onboardingDue({ ...base, ...overrides })).toBe(expected);
  });
});
