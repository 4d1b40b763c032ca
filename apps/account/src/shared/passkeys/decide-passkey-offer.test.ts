import { describe, expect, it } from 'vitest';
import { decidePasskeyOffer } from './decide-passkey-offer.ts';

const base = { inTeams: false, webauthn: true, conditionalMediation: true, hasChallenge: true };

describe('decidePasskeyOffer', () => {
  it.each([
    ['a browser with passkey autofill', base, { button: true, autofill: true }],
    [
      'no autofill in this browser: the button only',
      { ...base, conditionalMediation: false },
      { button: true, autofill: false },
    ],
    ['inside the Teams frame: nothing', { ...base, inTeams: true }, { button: false, autofill: false }],
    ['no WebAuthn: nothing', { ...base, webauthn: false }, { button: false, autofill: false }],
    ['no challenge yet: nothing', { ...base, hasChallenge: false }, { button: false, autofill: false }],
  ])('%s', (_name, input, expected) => {
    expect(decidePasskeyOffer(input)).toEqual(expected);
  });
});
