import { describe, expect, it } from 'vitest';
import type { LogoutCommand, LogoutInput } from './decide-logout-effect.ts';
import { decideLogoutEffect } from './decide-logout-effect.ts';

const base: LogoutInput = {
  state: null,
  logoutChallenge: null,
  postLogout: false,
  m365: false,
  cloudAccount: false,
};

const cases: [string, Partial<LogoutInput>, LogoutCommand][] = [
  [
    'undefined state → start (clear, logout flow, in_progress, redirect)',
    {},
    { type: 'start', cloudSignOut: false },
  ],
  [
    'a logout challenge → accept it through the user service',
    { logoutChallenge: 'lc', state: 'in_progress' },
    { type: 'accept-challenge', logoutChallenge: 'lc' },
  ],
  ['completed → login', { state: 'completed' }, { type: 'complete' }],
  ['post_logout → completed → login', { postLogout: true }, { type: 'complete' }],
  ['in progress without a challenge → completed → login', { state: 'in_progress' }, { type: 'complete' }],
  ['m365 sign-in mode → m365 logout subpage', { m365: true }, { type: 'go-m365-logout' }],
  [
    'm365 sign-in mode → m365 logout subpage, without waiting for MSAL',
    { m365: true, cloudAccount: null },
    { type: 'go-m365-logout' },
  ],
  [
    'a Microsoft account still signed in with an ory token → the identity logout, then the Microsoft one',
    { cloudAccount: true },
    { type: 'start', cloudSignOut: true },
  ],
  ['MSAL not answered yet → wait', { cloudAccount: null }, { type: 'wait' }],
  [
    'an answered logout challenge does not wait for MSAL',
    { logoutChallenge: 'lc', cloudAccount: null },
    { type: 'accept-challenge', logoutChallenge: 'lc' },
  ],
  ['completed does not wait for MSAL', { state: 'completed', cloudAccount: null }, { type: 'complete' }],
];

describe('decideLogoutEffect', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideLogoutEffect({ ...base, ...overrides })).toEqual(expected);
  });
});
