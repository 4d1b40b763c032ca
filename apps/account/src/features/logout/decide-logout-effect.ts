import type { LogoutState } from '../../shared/storage/registry.ts';

// Logout: undefined → in_progress → completed (15 s cookie).

export interface LogoutInput {
  state: LogoutState | null;
  logoutChallenge: string | null;
  postLogout: boolean;
  /** m365 sign-in mode: log out through the m365 logout subpage. */
  m365: boolean;
  /**
   * A Microsoft account is signed in (MSAL's accounts), whatever the token's mode; null while MSAL
   * is asked. Inside Teams this is false: the Teams host owns the Microsoft sign-in.
   */
  cloudAccount: boolean | null;
}

export type LogoutCommand =
  | { type: 'accept-challenge'; logoutChallenge: string }
  | { type: 'complete' }
  | { type: 'go-m365-logout' }
  | { type: 'wait' }
  /** `cloudSignOut`: after this logout, sign the Microsoft account out too (m365 logout subpage). */
  | { type: 'start'; cloudSignOut: boolean };

export function decideLogoutEffect(input: LogoutInput): LogoutCommand {
  // The authorization server asks the app to accept its logout request.
  if (input.logoutChallenge) return { type: 'accept-challenge', logoutChallenge: input.logoutChallenge };
  // Already completed, or back from the post-logout redirect: completed, then login.
  if (input.state === 'completed' || input.postLogout) return { type: 'complete' };
  // An interrupted logout (state still in progress, no challenge came back): finish on the login page.
  if (input.state === 'in_progress') return { type: 'complete' };
  if (input.m365) return { type: 'go-m365-logout' };
  if (input.cloudAccount === null) return { type: 'wait' };
  // Clear local state, create the identity logout flow, mark in progress and redirect. A Microsoft
  // account still signed in is signed out after it: the identity session must end first, and the
  // m365 logout subpage ends on Microsoft's sign-out, not here.
  return { type: 'start', cloudSignOut: input.cloudAccount };
}
