import { describe, expect, it } from 'vitest';
import { selectSsoPopupStep, type SsoPopupStep } from './select-sso-popup-step.ts';
import { callbackQuery } from './sso-popup-window.ts';

type Input = Parameters<typeof selectSsoPopupStep>[0];

describe('selectSsoPopupStep', () => {
  it.each<[string, Input, SsoPopupStep]>([
    [
      'a provider: start (window by default)',
      { provider: 'globex' },
      { type: 'start', provider: 'globex', via: 'window' },
    ],
    [
      'a provider opened by the Teams SDK',
      { provider: 'globex', via: 'teams' },
      { type: 'start', provider: 'globex', via: 'teams' },
    ],
    [
      'the marked window on our callback: hand the answer over',
      { callback: '?code=c&state=s', via: 'teams' },
      { type: 'handover', callback: '?code=c&state=s', via: 'teams' },
    ],
    [
      'back without an authorization: finish',
      { done: '1', via: 'window' },
      { type: 'finish', via: 'window' },
    ],
    [
      'done wins over a provider (no second start)',
      { done: '1', provider: 'globex' },
      { type: 'finish', via: 'window' },
    ],
    ['no provider: invalid', {}, { type: 'invalid', via: 'window' }],
    ['a provider with markup: invalid', { provider: '<script>' }, { type: 'invalid', via: 'window' }],
    [
      'opened as a plain link (no opener): starts nothing',
      { provider: 'globex', via: 'window', hasOpener: false },
      { type: 'invalid', via: 'window' },
    ],
    [
      'the Teams SDK window may have no opener (desktop hosts open it)',
      { provider: 'globex', via: 'teams', hasOpener: false },
      { type: 'start', provider: 'globex', via: 'teams' },
    ],
    [
      'an unknown via counts as window',
      { provider: 'globex', via: 'x' },
      { type: 'start', provider: 'globex', via: 'window' },
    ],
  ])('%s', (_label, input, expected) => {
    expect(selectSsoPopupStep(input)).toEqual(expected);
  });
});

describe('callbackQuery: only the authorization answer crosses to the frame', () => {
  it.each([
    ['code and state', '?code=ory_ac_1&state=s1&scope=openid', '?code=ory_ac_1&state=s1&scope=openid'],
    ['an error', '?error=access_denied&error_description=No', '?error=access_denied&error_description=No'],
    ['other parameters are dropped', '?code=c&state=s&next=https://evil.test', '?code=c&state=s'],
    ['nothing to hand over', '?state=s', null],
    ['a string that is not a query', 'success', null],
  ])('%s', (_label, search, expected) => {
    expect(callbackQuery(search)).toBe(expected);
  });
});
