import { describe, expect, it } from 'vitest';
import { copy } from '../../../copy.ts';
import { decidePasskeyName } from './decide-passkey-name.ts';

describe('decidePasskeyName', () => {
  it.each([
    ['a name', 'Laptop', { name: 'Laptop' }],
    ['trimmed', '  Phone ', { name: 'Phone' }],
    ['empty', '', { error: copy.passkeys.nameRequired }],
    ['blank', '   ', { error: copy.passkeys.nameRequired }],
    ['64 characters', 'x'.repeat(64), { name: 'x'.repeat(64) }],
    ['65 characters', 'x'.repeat(65), { error: copy.passkeys.nameTooLong }],
  ])('%s', (_name, input, expected) => {
    expect(decidePasskeyName(input)).toEqual(expected);
  });
});
