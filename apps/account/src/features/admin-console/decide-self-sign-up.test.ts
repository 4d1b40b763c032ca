import { describe, expect, it } from 'vitest';
import type { ConsoleSelfSignUp } from '@acme/users-contract/console';
import { consoleCopy as t } from './copy.ts';
import { decideSelfSignUpFailure, selectSelfSignUpView, type SelfSignUpView } from './decide-self-sign-up.ts';

const setting = (enabled: boolean, blockedBy: ConsoleSelfSignUp['blockedBy']): ConsoleSelfSignUp => ({
  organisationId: 'o',
  enabled,
  domains: ['acme.test'],
  blockedBy,
});

describe('selectSelfSignUpView', () => {
  it.each<[string, ConsoleSelfSignUp, SelfSignUpView]>([
    [
      'off, may open',
      setting(false, null),
      { checked: false, disabled: false, state: t.signup.off, explanation: null },
    ],
    ['on', setting(true, null), { checked: true, disabled: false, state: t.signup.on, explanation: null }],
    [
      'off, SSO enforced: the switch is disabled and says why',
      setting(false, 'sso'),
      { checked: false, disabled: true, state: t.signup.off, explanation: t.signup.blocked.sso },
    ],
    [
      'off, SCIM',
      setting(false, 'scim'),
      { checked: false, disabled: true, state: t.signup.off, explanation: t.signup.blocked.scim },
    ],
  ])('%s', (_name, input, expected) => {
    expect(selectSelfSignUpView(input)).toEqual(expected);
  });
});

describe('decideSelfSignUpFailure', () => {
  it.each<[string, { status: number | null; body: unknown; message: string }, string]>([
    [
      'refused for SSO: the explanation',
      { status: 403, body: { errorCode: 'SELF_SIGNUP_NOT_ALLOWED', reason: 'sso' }, message: 'x' },
      t.signup.blocked.sso,
    ],
    [
      'refused for SCIM',
      { status: 403, body: { errorCode: 'SELF_SIGNUP_NOT_ALLOWED', reason: 'scim' }, message: 'x' },
      t.signup.blocked.scim,
    ],
    [
      'refused without a known reason: the message',
      { status: 403, body: { errorCode: 'SELF_SIGNUP_NOT_ALLOWED', reason: 'other' }, message: 'closed' },
      'closed',
    ],
    [
      'another 403 (permission)',
      { status: 403, body: { errorCode: 'PERMISSION_DENIED', reason: 'sso' }, message: 'needs permission' },
      'needs permission',
    ],
    ['a network failure', { status: null, body: null, message: 'Failed to fetch' }, 'Failed to fetch'],
  ])('%s', (_name, input, expected) => {
    expect(decideSelfSignUpFailure(input)).toBe(expected);
  });
});
