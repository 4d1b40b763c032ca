import { describe, expect, it } from 'vitest';
import { copy } from '../../../copy.ts';
import { decideKeyName } from './decide-key-name.ts';

describe('decideKeyName', () => {
  it.each([
    ['a name', 'Laptop', copy.passkeys, { name: 'Laptop' }],
    ['trimmed', '  Phone ', copy.passkeys, { name: 'Phone' }],
    ['empty', '', copy.passkeys, { error: 'Give the passkey a name.' }],
    ['blank', '   ', copy.passkeys, { error: copy.passkeys.nameRequired }],
    ['64 characters', 'x'.repeat(64), copy.passkeys, { name: 'x'.repeat(64) }],
    ['65 characters', 'x'.repeat(65), copy.passkeys, { error: copy.keys.nameTooLong }],
    ['a security key without a name', ' ', copy.securityKeys, { error: 'Give the security key a name.' }],
    ['a security key named', 'YubiKey 5', copy.securityKeys, { name: 'YubiKey 5' }],
  ])('%s', (_name, input, text, expected) => {
    expect(decideKeyName(input, text)).toEqual(expected);
  });
});
