import { describe, expect, it } from 'vitest';
import { getErrorMessage } from './get-error-message.ts';
import { HttpError } from './http-error.ts';

describe('getErrorMessage', () => {
  it.each([
    ['error.message first', { error: { message: 'nested' }, message: 'top' }, 'nested'],
    ['then message', { errorCode: 'x', message: 'top' }, 'top'],
    ['Error instances', new Error('boom'), 'boom'],
    [
      'HttpError uses its body',
      new HttpError(400, 'Bad Request', { errorCode: 'E', message: 'from body' }),
      'from body',
    ],
    ['HttpError without a body', new HttpError(502, 'Bad Gateway', null), 'HTTP Error 502 Bad Gateway'],
    ['else generic', { nothing: true }, 'Unknown error'],
    ['null → generic', null, 'Unknown error'],
  ])('%s', (_name, input, expected) => {
    expect(getErrorMessage(input)).toBe(expected);
  });
});
