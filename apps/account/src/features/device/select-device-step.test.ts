import { describe, expect, it } from 'vitest';
import {
  decideDeviceCodeRefusal,
  decideDeviceLogin,
  formatUserCode,
  isCompleteUserCode,
  selectDeviceStep,
  type DeviceSearch,
  type DeviceStep,
} from './select-device-step.ts';

describe('selectDeviceStep', () => {
  const cases: [string, DeviceSearch, DeviceStep][] = [
    ['nothing: fetch a challenge', {}, { type: 'fetch-challenge', prefill: null }],
    [
      'verification_uri_complete: fetch a challenge, prefill the code',
      { user_code: 'wdjb-mjht' },
      { type: 'fetch-challenge', prefill: 'WDJB-MJHT' },
    ],
    [
      'a challenge: enter the code',
      { device_challenge: 'c1' },
      { type: 'enter-code', deviceChallenge: 'c1' },
    ],
    [
      'a consent challenge: approve or deny',
      { consent_challenge: 'k1' },
      { type: 'consent', consentChallenge: 'k1' },
    ],
    [
      'a login challenge: sign the person in',
      { login_challenge: 'l1' },
      { type: 'login', loginChallenge: 'l1' },
    ],
    [
      'a consent challenge wins over a login challenge',
      { login_challenge: 'l1', consent_challenge: 'k1' },
      { type: 'consent', consentChallenge: 'k1' },
    ],
    ['approved', { status: 'approved' }, { type: 'approved' }],
    ['expired', { error: 'expired' }, { type: 'failed', reason: 'expired' }],
    ['used', { error: 'used' }, { type: 'failed', reason: 'used' }],
    ['denied', { error: 'denied' }, { type: 'failed', reason: 'denied' }],
    ['an unknown error is "invalid"', { error: '<script>' }, { type: 'failed', reason: 'invalid' }],
    [
      'an error wins over a challenge',
      { error: 'used', device_challenge: 'c' },
      { type: 'failed', reason: 'used' },
    ],
  ];
  it.each(cases)('%s', (_name, search, step) => expect(selectDeviceStep(search)).toEqual(step));
});

describe('formatUserCode', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['w', 'W'],
    ['wdjb', 'WDJB'],
    ['wdjbm', 'WDJB-M'],
    ['WDJBMJHT', 'WDJB-MJHT'],
    ['wdjb-mjht', 'WDJB-MJHT'],
    [' WDJB MJHT ', 'WDJB-MJHT'],
    ['WDJB-MJHT-XTRA', 'WDJB-MJHT'],
    ['wd-jb', 'WDJB'],
  ];
  it.each(cases)('%j → %j', (raw, shown) => expect(formatUserCode(raw)).toBe(shown));

  it('is complete only with 8 characters', () => {
    expect(isCompleteUserCode('WDJB-MJH')).toBe(false);
    expect(isCompleteUserCode('WDJB-MJHT')).toBe(true);
  });
});

describe('decideDeviceCodeRefusal', () => {
  const cases: [unknown, ReturnType<typeof decideDeviceCodeRefusal>][] = [
    ['DEVICE_CODE_INVALID', { type: 'retry', reason: 'invalid' }],
    ['DEVICE_CODE_EXPIRED', { type: 'failed', reason: 'expired' }],
    ['DEVICE_CODE_USED', { type: 'failed', reason: 'used' }],
    ['DEVICE_REQUEST_NOT_FOUND', { type: 'restart' }],
    ['RATE_LIMITED', { type: 'retry', reason: 'rate-limited' }],
    [undefined, { type: 'retry', reason: 'invalid' }],
  ];
  it.each(cases)('%s', (code, decision) => expect(decideDeviceCodeRefusal(code)).toEqual(decision));
});

describe('decideDeviceLogin', () => {
  it.each([
    [true, true, 'm365-accept'],
    [true, false, 'go-login'],
    [false, true, 'go-login'],
    [false, false, 'go-login'],
  ] as const)('m365 sign-in here %s, m365 token %s: %s', (m365SignIn, hasM365Token, type) => {
    expect(decideDeviceLogin({ m365SignIn, hasM365Token })).toEqual({ type });
  });
});
