import { describe, expect, it } from 'vitest';
import type { ConsentCommand, ConsentInput } from './decide-consent-effect.ts';
import { decideConsentEffect, decideConsentFailure } from './decide-consent-effect.ts';
import { copy } from '../../copy.ts';

const base: ConsentInput = {
  challenge: 'cc',
  sessionState: 'present',
  sessionId: 's1',
  retries: 0,
  screen: { state: 'read', needsConsent: false },
};

const cases: [string, Partial<ConsentInput>, ConsentCommand][] = [
  [
    'challenge and session, request not read yet → read it',
    { screen: { state: 'unread' } },
    { type: 'read-request', consentChallenge: 'cc' },
  ],
  ['request being read → wait', { screen: { state: 'reading' } }, { type: 'wait' }],
  [
    'the platform’s own (or an already allowed) application → accept at once',
    {},
    { type: 'accept', consentChallenge: 'cc', identitySessionId: 's1' },
  ],
  [
    'another application → ask the person (Allow or Deny), never accept on its own',
    { screen: { state: 'read', needsConsent: true } },
    { type: 'ask', consentChallenge: 'cc', identitySessionId: 's1' },
  ],
  [
    'no session while the request is unread → retry login, never read it',
    { sessionState: 'none', sessionId: null, screen: { state: 'unread' } },
    { type: 'retry-login' },
  ],
  [
    'missing challenge → error',
    { challenge: null },
    { type: 'error', message: 'Error logging in: missing consent challenge' },
  ],
  ['session loading → wait', { sessionState: 'loading' }, { type: 'wait' }],
  [
    'no session, first time → retry login',
    { sessionState: 'none', sessionId: null },
    { type: 'retry-login' },
  ],
  [
    'no session after the retry → missing session error',
    { sessionState: 'none', sessionId: null, retries: 1 },
    { type: 'error', message: 'Error logging in: missing session' },
  ],
  [
    'MFA required counts as no usable session',
    { sessionState: 'requires-mfa', sessionId: null },
    { type: 'retry-login' },
  ],
];

describe('decideConsentEffect', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideConsentEffect({ ...base, ...overrides })).toEqual(expected);
  });
});

describe('decideConsentFailure (a refused consent)', () => {
  it.each([
    [
      'second-factor grace period over → login for the 2FA reset',
      { status: 403, errorCode: 'SECOND_FACTOR_REQUIRED' },
      { type: 'login-2fa-reset' },
    ],
    [
      'the terms were never accepted → the Terms step, then consent again',
      { status: 403, errorCode: 'TERMS_NOT_ACCEPTED' },
      { type: 'terms' },
    ],
    [
      'outside the organisation’s trusted networks → the trusted-networks message',
      { status: 403, errorCode: 'NETWORK_NOT_TRUSTED' },
      { type: 'error', message: copy.errors.networkNotTrusted },
    ],
    [
      'another refusal → the consent-flow error',
      { status: 403, errorCode: 'SESSION_MISMATCH' },
      {
        type: 'error',
        message:
          'Error in the consent flow, this can happen when login is initiated in different tabs at the same time.',
      },
    ],
    [
      'a network failure → the consent-flow error',
      {},
      {
        type: 'error',
        message:
          'Error in the consent flow, this can happen when login is initiated in different tabs at the same time.',
      },
    ],
  ])('%s', (_name, failure, expected) => {
    expect(decideConsentFailure(failure)).toEqual(expected);
  });
});
