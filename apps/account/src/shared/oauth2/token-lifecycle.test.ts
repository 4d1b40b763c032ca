import { describe, expect, it } from 'vitest';
import { backgroundRefreshDelay, decideTokenAction } from './token-lifecycle.ts';
import { tokenFromResponse } from './token-lifecycle.ts';

const NOW = 1_000_000_000;
const token = (expiresAt: number | null, refreshToken: string | null = 'ory_rt_1') => ({
  accessToken: 'at',
  refreshToken,
  expiresAt,
});

describe('decideTokenAction', () => {
  it.each([
    ['no token → missing', null, 'missing'],
    ['no expiry → valid', token(null), 'valid'],
    ['more than 30 s left → valid', token(NOW + 31_000), 'valid'],
    ['exactly 30 s left → refresh', token(NOW + 30_000), 'refresh'],
    ['within 30 s → refresh', token(NOW + 10_000), 'refresh'],
    ['expired → refresh', token(NOW - 1), 'refresh'],
    ['expired without a refresh token → new authorization', token(NOW - 1, null), 'reauthorize'],
  ] as const)('%s', (_name, t, expected) => {
    expect(decideTokenAction(t, NOW)).toBe(expected);
  });
});

describe('backgroundRefreshDelay', () => {
  it.each([
    ['1 h left → 60 s before expiry', token(NOW + 3_600_000), 3_540_000],
    ['121 s left → 61 s', token(NOW + 121_000), 61_000],
    ['exactly 120 s left → none', token(NOW + 120_000), null],
    ['60 s left → none', token(NOW + 60_000), null],
    ['no expiry → none', token(null), null],
    ['no token → none', null, null],
  ] as const)('%s', (_name, t, expected) => {
    expect(backgroundRefreshDelay(t, NOW)).toBe(expected);
  });
});

describe('tokenFromResponse', () => {
  it('stores expiresAt = now + expires_in × 1000', () => {
    expect(tokenFromResponse({ access_token: 'a', refresh_token: 'r', expires_in: 3600 }, NOW)).toEqual({
      accessToken: 'a',
      refreshToken: 'r',
      expiresAt: NOW + 3_600_000,
    });
  });
  it('keeps nullable fields null', () => {
    expect(tokenFromResponse({ access_token: 'a' }, NOW)).toEqual({
      accessToken: 'a',
      refreshToken: null,
      expiresAt: null,
    });
  });
});
