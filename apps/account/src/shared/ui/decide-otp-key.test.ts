import { describe, expect, it } from 'vitest';
import { decideOtpKey } from './decide-otp-key.ts';

describe('decideOtpKey', () => {
  it.each([
    ['a digit overwrites the current cell', '7', '123', 1, false, { type: 'edit', value: '173', caret: 2 }],
    ['a digit appends at the end', '4', '123', 3, false, { type: 'edit', value: '1234', caret: 4 }],
    [
      'a digit in a full field stays within its length',
      '9',
      '123456',
      6,
      false,
      { type: 'edit', value: '123456', caret: 6 },
    ],
    [
      'Backspace deletes the digit before the caret',
      'Backspace',
      '123',
      2,
      false,
      { type: 'edit', value: '13', caret: 1 },
    ],
    ['Backspace at the start does nothing', 'Backspace', '123', 0, true, { type: 'refuse' }],
    [
      'Delete deletes the digit at the caret',
      'Delete',
      '123',
      1,
      false,
      { type: 'edit', value: '13', caret: 1 },
    ],
    ['ArrowLeft moves back one cell', 'ArrowLeft', '123', 2, false, { type: 'move', caret: 1 }],
    ['ArrowRight stops after the last digit', 'ArrowRight', '123', 3, false, { type: 'move', caret: 3 }],
    ['Home and ArrowUp go to the first cell', 'ArrowUp', '123', 2, false, { type: 'move', caret: 0 }],
    ['End and ArrowDown go after the last digit', 'End', '123', 0, false, { type: 'move', caret: 3 }],
    ['a letter is refused', 'x', '123', 1, false, { type: 'refuse' }],
    ['Tab passes to the browser', 'Tab', '123', 1, false, { type: 'pass' }],
  ])('%s', (_, key, value, at, atStart, effect) => {
    expect(decideOtpKey(key, value, at, 6, atStart)).toEqual(effect);
  });
});
