// Which sections of the account page a person sees, from how they sign in. One pure function.
//
// - Microsoft 365 people have no identity session and so no settings flows: their name and
//   organisation, and a link to their Microsoft account.
// - SSO people (signed in through their organisation's provider): their organisation manages their
//   password and second factor ("SSO users cannot set up MFA"); they see their profile and sessions.
// - Everyone else: profile, password, two-factor, sessions, and the source-code-host link, which for
//   a source-code-host user is "replace" (without a connection they do not count as signed in).

import { isSsoSession } from '@acme/identity-contract/sso-session';

export interface SectionsInput {
  /** The access token's `ext.user.authenticationMode` ('ory', 'm365', …), null without a token. */
  tokenMode: string | null;
  /** Whether an identity session exists. */
  hasSession: boolean;
  /** The session's authentication methods. */
  sessionMethods: readonly string[];
  isGitUser: boolean;
}

export interface SettingsSections {
  kind: 'identity' | 'sso' | 'm365';
  profile: 'edit' | 'read';
  password: 'form' | 'managed' | 'none';
  twoFactor: 'manage' | 'managed' | 'none';
  sessions: boolean;
  linkedAccount: 'unlink' | 'replace' | 'none';
  microsoftAccount: boolean;
}

export function selectSettingsSections(input: SectionsInput): SettingsSections {
  if (input.tokenMode === 'm365' || !input.hasSession) {
    return {
      kind: 'm365',
      profile: 'read',
      password: 'none',
      twoFactor: 'none',
      sessions: false,
      linkedAccount: 'none',
      microsoftAccount: input.tokenMode === 'm365',
    };
  }
  if (isSsoSession(input.sessionMethods)) {
    return {
      kind: 'sso',
      profile: 'edit',
      password: 'managed',
      twoFactor: 'managed',
      sessions: true,
      linkedAccount: 'none',
      microsoftAccount: false,
    };
  }
  return {
    kind: 'identity',
    profile: 'edit',
    password: 'form',
    twoFactor: 'manage',
    sessions: true,
    linkedAccount: input.isGitUser ? 'replace' : 'unlink',
    microsoftAccount: false,
  };
}
