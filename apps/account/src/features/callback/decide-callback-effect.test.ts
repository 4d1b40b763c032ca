import { describe, expect, it } from 'vitest';
import { facts, NOW, PAST } from '../../testing/fixtures.ts';
import type { CallbackCommand, CallbackInput } from './decide-callback-effect.ts';
import { decideAfterExchange, decideCallbackEffect } from './decide-callback-effect.ts';

const base: CallbackInput = {
  query: { code: 'ory_ac_1', state: 'state-123456' },
  storedState: 'state-123456',
  sessionState: 'present',
  session: facts(),
  isSsoEmailResult: false,
  hasToken: false,
  now: NOW,
};

const cases: [string, Partial<CallbackInput>, CallbackCommand][] = [
  ['valid code and state → exchange', {}, { type: 'exchange', code: 'ory_ac_1' }],
  ['waits for the session', { sessionState: 'loading' }, { type: 'wait' }],
  [
    'an OAuth2 error → error text',
    { query: { error: 'access_denied', error_description: 'denied' } },
    { type: 'error', message: 'OAuth2 error access_denied. denied' },
  ],
  [
    'an error from the source-code host (token present, foreign state) → message, link step again',
    {
      query: { error: 'access_denied', error_description: 'denied', state: 'host-state' },
      storedState: null,
      hasToken: true,
    },
    { type: 'git-failed', message: 'OAuth2 error access_denied. denied' },
  ],
  [
    'an OAuth2 error without a token stays an error page',
    {
      query: { error: 'access_denied', error_description: 'denied', state: 'host-state' },
      storedState: null,
    },
    { type: 'error', message: 'OAuth2 error access_denied. denied' },
  ],
  [
    'no code, no session → missing code error',
    { query: {}, sessionState: 'none', session: null },
    { type: 'error', message: 'The url did not contain a code parameter' },
  ],
  ['no code with a session → authorize', { query: {} }, { type: 'authorize' }],
  ['no code with a token → initial page', { query: {}, hasToken: true }, { type: 'go-initial-page' }],
  [
    'state mismatch → error',
    { storedState: 'other-state' },
    { type: 'error', message: 'The state parameter did not match the stored state' },
  ],
  [
    'no stored state → error',
    { storedState: null },
    { type: 'error', message: 'The state parameter did not match the stored state' },
  ],
  [
    'state mismatch with a token already stored (replayed callback) → initial page',
    { storedState: null, hasToken: true },
    { type: 'go-initial-page' },
  ],
  [
    'aal1 without a second factor (non-SSO) → back to login for a 2FA reset',
    { session: facts({ mfaSetupDeadline: PAST }) },
    { type: 'login-2fa-reset' },
  ],
  [
    'aal1 without a factor but SSO (oidc) → exchange',
    { session: facts({ methods: ['oidc'], mfaSetupDeadline: PAST }) },
    { type: 'exchange', code: 'ory_ac_1' },
  ],
  [
    'aal1 without a factor but SSO (saml) → exchange',
    { session: facts({ methods: ['saml'], mfaSetupDeadline: PAST }) },
    { type: 'exchange', code: 'ory_ac_1' },
  ],
  [
    'aal1 without a factor but SSO email result → exchange',
    { session: facts({ mfaSetupDeadline: PAST }), isSsoEmailResult: true },
    { type: 'exchange', code: 'ory_ac_1' },
  ],
  [
    'aal2 → exchange',
    { session: facts({ aal: 'aal2', methods: ['password', 'totp'], mfaSetupDeadline: PAST }) },
    { type: 'exchange', code: 'ory_ac_1' },
  ],
  [
    'a code not starting with "ory" is a source-code-host code → complete the link',
    { query: { code: 'gh-code-1', state: 'git-state' }, storedState: null, hasToken: true },
    { type: 'git-complete', code: 'gh-code-1', state: 'git-state' },
  ],
  [
    'a source-code-host code without state',
    { query: { code: 'abc' }, hasToken: true },
    { type: 'git-complete', code: 'abc' },
  ],
  [
    'an OAuth2 code ("ory…") is exchanged, not sent to the source-code host',
    { query: { code: 'ory_ac_xyz', state: 'state-123456' } },
    { type: 'exchange', code: 'ory_ac_xyz' },
  ],
  [
    'no session → exchange (the token decides)',
    { sessionState: 'none', session: null },
    { type: 'exchange', code: 'ory_ac_1' },
  ],
];

describe('decideCallbackEffect', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideCallbackEffect({ ...base, ...overrides })).toEqual(expected);
  });
});

describe('decideAfterExchange (onboarding steps)', () => {
  it.each([
    ['all done → initial page', facts(), false, { type: 'go-initial-page' }],
    [
      'git user not connected → git step',
      facts({ isGitUser: true }),
      false,
      { type: 'onboarding', steps: ['git'] },
    ],
    [
      'git user connected → initial page',
      facts({ isGitUser: true, gitProviderConnected: true }),
      false,
      { type: 'go-initial-page' },
    ],
    ['git step disabled → skipped', facts({ isGitUser: true }), true, { type: 'go-initial-page' }],
    [
      'terms not accepted → tos step',
      facts({ tosAccepted: false }),
      false,
      { type: 'onboarding', steps: ['tos'] },
    ],
    [
      'both, git first',
      facts({ isGitUser: true, tosAccepted: false }),
      false,
      { type: 'onboarding', steps: ['git', 'tos'] },
    ],
    [
      'git disabled, terms not accepted → tos only',
      facts({ isGitUser: true, tosAccepted: false }),
      true,
      { type: 'onboarding', steps: ['tos'] },
    ],
    ['no session → initial page', null, false, { type: 'go-initial-page' }],
  ] as const)('%s', (_name, session, disableGitStep, expected) => {
    expect(decideAfterExchange({ session, disableGitStep, tokenAuthMode: null, now: NOW })).toEqual(expected);
  });

  it('an m365 token is authenticated → initial page', () => {
    expect(
      decideAfterExchange({
        session: facts({ tosAccepted: false }),
        disableGitStep: false,
        tokenAuthMode: 'm365',
        now: NOW,
      }),
    ).toEqual({ type: 'go-initial-page' });
  });
});
