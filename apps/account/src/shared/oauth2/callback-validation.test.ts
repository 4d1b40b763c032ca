import { describe, expect, it } from 'vitest';
import { validateCallback } from './callback-validation.ts';

describe('validateCallback', () => {
  it.each([
    [
      'code and matching state',
      { code: 'ory_ac_x', state: 'abcdefgh' },
      'abcdefgh',
      { ok: true, code: 'ory_ac_x' },
    ],
    [
      'missing code',
      { state: 'abcdefgh' },
      'abcdefgh',
      { ok: false, message: 'The url did not contain a code parameter' },
    ],
    [
      'an error parameter',
      { error: 'invalid_request', error_description: 'bad', state: 'abcdefgh' },
      'abcdefgh',
      { ok: false, message: 'OAuth2 error invalid_request. bad' },
    ],
    [
      'an error wins over a code',
      { code: 'c', error: 'access_denied', error_description: 'no' },
      'abcdefgh',
      { ok: false, message: 'OAuth2 error access_denied. no' },
    ],
    [
      'state mismatch',
      { code: 'c', state: 'other' },
      'abcdefgh',
      { ok: false, message: 'The state parameter did not match the stored state' },
    ],
    [
      'no stored state',
      { code: 'c', state: 'abcdefgh' },
      null,
      { ok: false, message: 'The state parameter did not match the stored state' },
    ],
    [
      'no state in the URL',
      { code: 'c' },
      'abcdefgh',
      { ok: false, message: 'The state parameter did not match the stored state' },
    ],
  ] as const)('%s', (_name, query, stored, expected) => {
    expect(validateCallback(query, stored)).toEqual(expected);
  });
});
