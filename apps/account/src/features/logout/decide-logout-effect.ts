import type { LogoutState } from '../../shared/storage/registry.ts';

// Logout: undefined → in_progress → completed (15 s cookie).

export interface LogoutInput {
  state: LogoutState | null;
  logoutChallenge: string | null;
  postLogout: boolean;
  /** m365 sign-in mode or a signed-in cloud account: log out through the m365 logout subpage. */
  m365: boolean;
}

export type LogoutCommand =
  | { type: 'accept-challenge'; logoutChallenge: string }
  | { type: 'complete' }
  | { type: 'go-m365-logout' }
  | { type: 'start' };

export function decideLogoutEffect(input: LogoutInput): LogoutCommand {
  // The authorization server asks the app to accept its logout request.
  if (input.logoutChallenge) return { type: 'accept-challenge', logoutChallenge: input.logoutChallenge };
  // Already completed, or back from the post-logout redirect: completed, then login.
  if (input.state === 'completed' || input.postLogout) return { type: 'complete' };
  // An interrupted logout (state still in progress, no challenge came back): finish on the login page.
  if (input.state === 'in_progress') return { type: 'complete' };
  if (input.m365) return { type: 'go-m365-logout' };
  // Clear local state, create the identity logout flow, mark in progress and redirect.
  return { type: 'start' };
}
