import { describe, expect, it } from 'vitest';
import { decideSsoTestMessage, selectSsoTestMessage, SSO_TEST_MESSAGE } from './decide-sso-test-message.ts';

const own = 'http://localhost:4002';
const message = { type: SSO_TEST_MESSAGE, state: 'st', code: 'c0de' };

describe('selectSsoTestMessage (the callback page)', () => {
  it.each([
    [
      { state: 'st', code: 'c0de' },
      { type: SSO_TEST_MESSAGE, state: 'st', code: 'c0de' },
    ],
    [
      { state: 'st', error: 'access_denied' },
      { type: SSO_TEST_MESSAGE, state: 'st', error: 'access_denied' },
    ],
    [{ code: 'c0de' }, null],
    [{ state: 'st' }, null],
    [{}, null],
  ])('%j → %j', (search, expected) => {
    expect(selectSsoTestMessage(search)).toEqual(expected);
  });
});

describe('decideSsoTestMessage (the opener)', () => {
  const base = { origin: own, ownOrigin: own, fromPopup: true, data: message, expectedState: 'st' };
  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['another window than the popup', { fromPopup: false }],
    ['no test running', { expectedState: null }],
    ['another state', { expectedState: 'other' }],
    ['another message type', { data: { ...message, type: 'x' } }],
    ['no data', { data: null }],
    ['neither code nor error', { data: { type: SSO_TEST_MESSAGE, state: 'st' } }],
  ])('ignores %s', (_name, change) => {
    expect(decideSsoTestMessage({ ...base, ...change })).toEqual({ type: 'ignore' });
  });

  it('completes with the code, or the provider error', () => {
    expect(decideSsoTestMessage(base)).toEqual({ type: 'complete', body: { state: 'st', code: 'c0de' } });
    const error = { type: SSO_TEST_MESSAGE, state: 'st', error: 'access_denied' };
    expect(decideSsoTestMessage({ ...base, data: error })).toEqual({
      type: 'complete',
      body: { state: 'st', error: 'access_denied' },
    });
  });
});
