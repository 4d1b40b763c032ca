import { describe, expect, it } from 'vitest';
import type { ConsentCommand, ConsentInput } from './decide-consent-effect.ts';
import { decideConsentEffect } from './decide-consent-effect.ts';

const base: ConsentInput = { challenge: 'cc', sessionState: 'present', sessionId: 's1', retried: false };

const cases: [string, Partial<ConsentInput>, ConsentCommand][] = [
  ['challenge and session → accept', {}, { type: 'accept', consentChallenge: 'cc', identitySessionId: 's1' }],
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
    { sessionState: 'none', sessionId: null, retried: true },
    { type: 'error', message: 'Error logging in: missing session' },
  ],
  [
    'MFA required counts as no usable session',
    { sessionState: 'requires-mfa', sessionId: null },
    { type: 'retry-login' },
  ],
];

describe('decideConsentEffect (SPEC §4 Consent)', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideConsentEffect({ ...base, ...overrides })).toEqual(expected);
  });
});
