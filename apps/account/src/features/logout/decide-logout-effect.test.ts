import { describe, expect, it } from 'vitest';
import type { LogoutCommand, LogoutInput } from './decide-logout-effect.ts';
import { decideLogoutEffect } from './decide-logout-effect.ts';

const base: LogoutInput = { state: null, logoutChallenge: null, postLogout: false, m365: false };

const cases: [string, Partial<LogoutInput>, LogoutCommand][] = [
  ['undefined state → start (clear, logout flow, in_progress, redirect)', {}, { type: 'start' }],
  [
    'a logout challenge → accept it through the user service',
    { logoutChallenge: 'lc', state: 'in_progress' },
    { type: 'accept-challenge', logoutChallenge: 'lc' },
  ],
  ['completed → login', { state: 'completed' }, { type: 'complete' }],
  ['post_logout → completed → login', { postLogout: true }, { type: 'complete' }],
  ['in progress without a challenge → completed → login', { state: 'in_progress' }, { type: 'complete' }],
  ['m365 sign-in mode → m365 logout subpage', { m365: true }, { type: 'go-m365-logout' }],
];

describe('decideLogoutEffect', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideLogoutEffect({ ...base, ...overrides })).toEqual(expected);
  });
});
