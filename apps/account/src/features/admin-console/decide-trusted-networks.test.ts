import { describe, expect, it } from 'vitest';
import { consoleCopy as t } from './copy.ts';
import {
  decideSaveFailure,
  decideTrustedNetworksForm,
  type SaveFailure,
  type TrustedNetworksFormDecision,
} from './decide-trusted-networks.ts';

describe('decideTrustedNetworksForm', () => {
  it.each<[string, string, TrustedNetworksFormDecision]>([
    ['empty: every network allowed', '  \n ', { ok: true, ranges: [] }],
    [
      'one per line, commas and spaces, repeats once',
      '198.51.100.0/24\n2001:db8::/32, 192.0.2.7  198.51.100.0/24',
      { ok: true, ranges: ['198.51.100.0/24', '2001:db8::/32', '192.0.2.7'] },
    ],
    ['not an address', 'office-network', { ok: false, error: t.networks.badRange('office-network') }],
    ['a bare number', '10', { ok: false, error: t.networks.badRange('10') }],
    [
      'too many ranges',
      Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`).join('\n'),
      { ok: false, error: t.networks.tooMany(100) },
    ],
  ])('%s', (_name, text, expected) => {
    expect(decideTrustedNetworksForm(text)).toEqual(expected);
  });
});

describe('decideSaveFailure', () => {
  it.each<[string, { status: number | null; body: unknown; message: string }, SaveFailure]>([
    [
      'the list excludes the admin: ask to confirm, naming their address',
      {
        status: 409,
        body: { errorCode: 'LOCKOUT_CONFIRMATION_REQUIRED', yourAddress: '203.0.113.9' },
        message: 'm',
      },
      { type: 'confirm', address: '203.0.113.9' },
    ],
    [
      'a bad range the server refused: its message',
      { status: 400, body: { errorCode: 'INVALID_REQUEST' }, message: 'The request is invalid' },
      { type: 'error', message: 'The request is invalid' },
    ],
    [
      'no answer',
      { status: null, body: null, message: 'Failed to fetch' },
      { type: 'error', message: 'Failed to fetch' },
    ],
  ])('%s', (_name, failure, expected) => {
    expect(decideSaveFailure(failure)).toEqual(expected);
  });
});
