import { describe, expect, it } from 'vitest';
import { copy } from '../../copy.ts';
import type { LoginView, LoginViewInput } from './select-login-view.ts';
import { selectLoginView } from './select-login-view.ts';

const base: LoginViewInput = {
  command: { type: 'none' },
  sessionState: 'none',
  sessionError: null,
  stepNeedsFlow: false,
  step: 'email',
};

const cases: [string, Partial<LoginViewInput>, LoginView][] = [
  ['nothing to run: the selected step', {}, { kind: 'step', step: 'email' }],
  [
    "an authorization answer's error is shown, with a way back to login",
    { command: { type: 'oauth2-error', code: 'access_denied', description: 'no' }, sessionState: 'error' },
    { kind: 'error', message: copy.errors.oauth2('access_denied', 'no'), mode: 'login' },
  ],
  [
    'a session that failed to load offers a retry',
    { sessionState: 'error', sessionError: 'down' },
    { kind: 'error', message: copy.errors.loadingSession('down'), mode: 'retry' },
  ],
  [
    'a session error without a message says so generically',
    { sessionState: 'error' },
    { kind: 'error', message: copy.errors.loadingSession(copy.errors.unknown), mode: 'retry' },
  ],
  ['a command that leaves the page: progress', { command: { type: 'go-callback' } }, { kind: 'progress' }],
  [
    'the Email step stays while the challenge is stored',
    { command: { type: 'store-challenge', challenge: 'c', reloadTo: '/account/login' } },
    { kind: 'step', step: 'email', inert: true },
  ],
  [
    'the Email step stays while the session is checked',
    { command: { type: 'wait' }, sessionState: 'loading' },
    { kind: 'step', step: 'email', inert: true },
  ],
  [
    'the Email step stays while the authorization starts',
    { command: { type: 'authorize' } },
    { kind: 'step', step: 'email', inert: true },
  ],
  [
    'any other step waits for the session: progress',
    { command: { type: 'wait' }, sessionState: 'loading', step: 'password' },
    { kind: 'progress' },
  ],
  ['the step waits for its flow: progress', { stepNeedsFlow: true }, { kind: 'progress' }],
];

describe('selectLoginView', () => {
  it.each(cases)('%s', (_name, patch, expected) => {
    expect(selectLoginView({ ...base, ...patch })).toEqual(expected);
  });
});
