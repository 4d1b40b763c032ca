/** What a key press does to a code field: type or delete a digit, move the caret, or nothing. */
type OtpKeyEffect =
  | { type: 'edit'; value: string; caret: number }
  | { type: 'move'; caret: number }
  | { type: 'refuse' }
  | { type: 'pass' };

/**
 * The effect of `key` on `value` (at most `length` digits) with the caret at `at`; `atStart` is
 * true when nothing is selected before the caret's first cell. Digits overwrite the current cell or
 * append; other printable keys are refused; shortcuts and other keys pass to the browser.
 */
export function decideOtpKey(
  key: string,
  value: string,
  at: number,
  length: number,
  atStart: boolean,
): OtpKeyEffect {
  if (/^[0-9]$/.test(key)) {
    return {
      type: 'edit',
      value: (value.slice(0, at) + key + value.slice(at + 1)).slice(0, length),
      caret: Math.min(at + 1, length),
    };
  }
  switch (key) {
    case 'Backspace': {
      if (at === 0 && atStart) return { type: 'refuse' };
      const from = Math.max(0, at - 1);
      return { type: 'edit', value: value.slice(0, from) + value.slice(from + 1), caret: from };
    }
    case 'Delete':
      return { type: 'edit', value: value.slice(0, at) + value.slice(at + 1), caret: at };
    case 'ArrowLeft':
      return { type: 'move', caret: Math.max(0, at - 1) };
    case 'ArrowRight':
      return { type: 'move', caret: Math.min(value.length, at + 1) };
    case 'Home':
    case 'ArrowUp':
      return { type: 'move', caret: 0 };
    case 'End':
    case 'ArrowDown':
      return { type: 'move', caret: value.length };
  }
  return key.length === 1 ? { type: 'refuse' } : { type: 'pass' };
}
