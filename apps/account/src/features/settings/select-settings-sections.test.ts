import { describe, expect, it } from 'vitest';
import { selectSettingsSections, type SectionsInput } from './select-settings-sections.ts';

const base: SectionsInput = {
  tokenMode: 'ory',
  hasSession: true,
  sessionMethods: ['password'],
  isGitUser: false,
};

describe('selectSettingsSections', () => {
  it.each<[string, Partial<SectionsInput>, Record<string, unknown>]>([
    [
      'password user: everything',
      {},
      { kind: 'identity', password: 'form', twoFactor: 'manage', sessions: true, linkedAccount: 'unlink' },
    ],
    [
      'source-code-host user: the link is replaced, not removed',
      { isGitUser: true },
      { linkedAccount: 'replace' },
    ],
    [
      'SSO user: the organisation manages password and 2FA',
      { sessionMethods: ['oidc'] },
      { kind: 'sso', password: 'managed', twoFactor: 'managed', sessions: true, linkedAccount: 'none' },
    ],
    [
      'SAML SSO user: the same as OIDC',
      { sessionMethods: ['saml'] },
      { kind: 'sso', password: 'managed', twoFactor: 'managed', sessions: true, linkedAccount: 'none' },
    ],
    [
      'Microsoft 365 user: no settings flows, a link to the Microsoft account',
      { tokenMode: 'm365', hasSession: false, sessionMethods: [] },
      { kind: 'm365', profile: 'read', password: 'none', sessions: false, microsoftAccount: true },
    ],
    [
      'no session at all: nothing to manage here',
      { hasSession: false, sessionMethods: [] },
      { kind: 'm365', password: 'none', twoFactor: 'none', microsoftAccount: false },
    ],
  ])('%s', (_name, over, expected) => {
    expect(selectSettingsSections({ ...base, ...over })).toMatchObject(expected);
  });
});
