import { describe, expect, it } from 'vitest';
import { defaultUrlMap } from '../../shared/config/applications.ts';
import { emailResult } from '../../testing/fixtures.ts';
import type { LoginCommand, LoginEffectInput } from './decide-login-effect.ts';
import { decideLoginEffect, decideLoginQuery } from './decide-login-effect.ts';

const base: LoginEffectInput = {
  application: 'platform',
  applicationCookie: null,
  urlMap: defaultUrlMap(),
  location: { pathname: '/account/login', search: '' },
  queryChallenge: null,
  storedChallenge: null,
  sessionState: 'none',
  authenticated: false,
  onboardingDue: false,
  hasToken: false,
  emailResult: null,
  m365SignIn: true,
  resetPasswordInProgress: false,
  sessionReloaded: false,
  loginLockHeld: false,
  initialPagePath: '/research',
};

const cases: [string, Partial<LoginEffectInput>, LoginCommand][] = [
  [
    'login_challenge is stored, then the login route reloads without it',
    { queryChallenge: 'abc', location: { pathname: '/account/login', search: '?login_challenge=abc&x=1' } },
    { type: 'store-challenge', challenge: 'abc', reloadTo: '/account/login?x=1' },
  ],
  [
    'a challenge returning to another application redirects to its URL-map entry, same path and query',
    {
      applicationCookie: 'magic',
      queryChallenge: 'abc',
      location: { pathname: '/account/login', search: '?login_challenge=abc' },
    },
    { type: 'redirect-application', url: 'http://localhost:4001/account/login?login_challenge=abc' },
  ],
  [
    'a login started on dashboard returns to dashboard, same path and query',
    {
      applicationCookie: 'dashboard',
      queryChallenge: 'abc',
      location: { pathname: '/account/login', search: '?login_challenge=abc&x=1' },
    },
    { type: 'redirect-application', url: 'http://localhost:4003/account/login?login_challenge=abc&x=1' },
  ],
  [
    'the same application stores the challenge',
    {
      applicationCookie: 'platform',
      queryChallenge: 'abc',
      location: { pathname: '/account/login', search: '?login_challenge=abc' },
    },
    { type: 'store-challenge', challenge: 'abc', reloadTo: '/account/login' },
  ],
  ['waits while the session loads', { sessionState: 'loading' }, { type: 'wait' }],
  ['waits on a session error (the error page shows)', { sessionState: 'error' }, { type: 'wait' }],
  [
    'm365 result without authentication → m365 login',
    { emailResult: emailResult({ isM365: true }), storedChallenge: 'c' },
    { type: 'go-m365-login' },
  ],
  [
    'm365 result on an application without m365 sign-in → stays (the step says so), no m365 login',
    { emailResult: emailResult({ isM365: true }), storedChallenge: 'c', m365SignIn: false },
    { type: 'none' },
  ],
  [
    'the SSO password link chosen (break-glass), challenge stored → stays (the password step shows)',
    {
      emailResult: emailResult({ isSSO: true, provider: 'acme-sso', passwordInstead: true }),
      storedChallenge: 'c',
    },
    { type: 'none' },
  ],
  [
    'the SSO password link chosen, signed in with the password and a token → initial page',
    {
      emailResult: emailResult({ isSSO: true, provider: 'acme-sso', passwordInstead: true }),
      sessionState: 'present',
      authenticated: true,
      hasToken: true,
    },
    { type: 'go-initial-page', path: '/research' },
  ],
  [
    'm365 result but authenticated → initial page',
    {
      emailResult: emailResult({ isM365: true }),
      sessionState: 'present',
      authenticated: true,
      hasToken: true,
    },
    { type: 'go-initial-page', path: '/research' },
  ],
  [
    'reset password in progress → forgot-password',
    { resetPasswordInProgress: true, storedChallenge: 'c' },
    { type: 'go-forgot-password' },
  ],
  [
    'authenticated session with a token → initial page',
    { sessionState: 'present', authenticated: true, hasToken: true },
    { type: 'go-initial-page', path: '/research' },
  ],
  [
    'authenticated session with a token and a flow the identity service sent (password confirmation) → render the step',
    { sessionState: 'present', authenticated: true, hasToken: true, flowInQuery: true },
    { type: 'none' },
  ],
  [
    'authenticated session without a token and a flow the identity service sent → render the step',
    { sessionState: 'present', authenticated: true, flowInQuery: true },
    { type: 'none' },
  ],
  [
    'authenticated session without a token → callback',
    { sessionState: 'present', authenticated: true },
    { type: 'go-callback' },
  ],
  [
    'authenticated session without a token but a pending challenge → render the step',
    { sessionState: 'present', authenticated: true, storedChallenge: 'c' },
    { type: 'none' },
  ],
  [
    'session owing onboarding steps (terms, source-code host), no token → callback stepper',
    { sessionState: 'present', onboardingDue: true },
    { type: 'go-callback' },
  ],
  [
    'session owing onboarding steps with a token → callback stepper',
    { sessionState: 'present', onboardingDue: true, hasToken: true },
    { type: 'go-callback' },
  ],
  [
    'session owing onboarding steps with a pending challenge → render the step',
    { sessionState: 'present', onboardingDue: true, storedChallenge: 'c' },
    { type: 'none' },
  ],
  [
    'expired session with a token → reload the session once',
    { sessionState: 'none', hasToken: true },
    { type: 'reload-session' },
  ],
  [
    'expired session with a token after the reload → remove the token',
    { sessionState: 'none', hasToken: true, sessionReloaded: true },
    { type: 'remove-token' },
  ],
  ['no token, no challenge → authorize', {}, { type: 'authorize' }],
  ['no token, no challenge, lock held → wait', { loginLockHeld: true }, { type: 'wait' }],
  [
    'no token, no challenge, unauthenticated session → render its step (no authorize loop)',
    { sessionState: 'present' },
    { type: 'none' },
  ],
  [
    'no token, no challenge, MFA required → render the MFA step',
    { sessionState: 'requires-mfa' },
    { type: 'none' },
  ],
  ['a stored challenge without a session → render the step', { storedChallenge: 'c' }, { type: 'none' }],
  [
    'a stored challenge with an unauthenticated session → render the step',
    { storedChallenge: 'c', sessionState: 'present' },
    { type: 'none' },
  ],
];

describe('decideLoginEffect', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideLoginEffect({ ...base, ...overrides })).toEqual(expected);
  });
});

describe('the login query parameters (error, code, consent_challenge, post_logout)', () => {
  const at = (search: string) => ({ pathname: '/account/login', search });
  const cases: [string, Partial<LoginEffectInput>, LoginCommand][] = [
    [
      'error and error_description from an authorization answer are shown, never re-authorized',
      {
        query: { error: 'access_denied', error_description: 'The user denied' },
        location: at('?error=access_denied'),
      },
      { type: 'oauth2-error', code: 'access_denied', description: 'The user denied' },
    ],
    [
      'an error without a description still shows its code',
      { query: { error: 'server_error' }, sessionState: 'present', authenticated: true, hasToken: true },
      { type: 'oauth2-error', code: 'server_error', description: '' },
    ],
    [
      'an error wins over a login_challenge in the same address',
      { query: { error: 'invalid_request' }, queryChallenge: 'abc' },
      { type: 'oauth2-error', code: 'invalid_request', description: '' },
    ],
    [
      'consent_challenge goes to the consent screen with it',
      { query: { consent_challenge: 'cc 1' } },
      { type: 'go', to: '/account/consent?consent_challenge=cc+1' },
    ],
    [
      'an authorization code goes to the callback with the whole query (state included)',
      { query: { code: 'ory_ac_1' }, location: at('?code=ory_ac_1&state=s1') },
      { type: 'go', to: '/account/callback?code=ory_ac_1&state=s1' },
    ],
    [
      'post_logout ends the logout and reloads login without it',
      { query: { post_logout: '' }, location: at('?post_logout=&x=1'), hasToken: true },
      { type: 'finish-logout', reloadTo: '/account/login?x=1' },
    ],
    [
      'profileFlow alone changes no effect (the 2FA set-up step reads it)',
      { query: {}, location: at('?profileFlow=f1') },
      { type: 'authorize' },
    ],
  ];
  it.each(cases)('%s', (_name, patch, expected) => {
    expect(decideLoginEffect({ ...base, ...patch })).toEqual(expected);
  });
  it('decideLoginQuery answers null for a query without these parameters', () => {
    expect(decideLoginQuery({}, at(''))).toBeNull();
  });
});

describe('logout left a Microsoft account signed in: the m365 logout subpage signs it out', () => {
  it.each([
    [
      'signed out: the m365 logout subpage signs it out',
      { sessionState: 'none' },
      { type: 'go', to: '/account/m365-logout?after_logout=1' },
    ],
    ['still loading the session: wait', { sessionState: 'loading' }, { type: 'wait' }],
    [
      'signed in again meanwhile: not now',
      { sessionState: 'present', authenticated: true, hasToken: true },
      { type: 'go-initial-page', path: '/research' },
    ],
  ] as [string, Partial<LoginEffectInput>, LoginCommand][])('%s', (_name, patch, expected) => {
    expect(decideLoginEffect({ ...base, cloudSignOutPending: true, ...patch })).toEqual(expected);
  });
});
