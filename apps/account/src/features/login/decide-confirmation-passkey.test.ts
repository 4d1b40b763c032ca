import { describe, expect, it } from 'vitest';
import { decideConfirmationPasskey } from './decide-confirmation-passkey.ts';

const base = { step: 'password-confirmation' as const, available: true, hasChallenge: true };

describe('decideConfirmationPasskey', () => {
  it.each([
    ['a person with a passkey confirming their password', base, true],
    ['no passkey (the refresh flow has no challenge)', { ...base, hasChallenge: false }, false],
    ['inside the Teams frame or without WebAuthn', { ...base, available: false }, false],
    ['the Password step of a sign-in', { ...base, step: 'password' as const }, false],
    ['the 2FA step', { ...base, step: 'mfa' as const }, false],
  ])('%s', (_name, input, expected) => {
    expect(decideConfirmationPasskey(input)).toBe(expected);
  });
});
