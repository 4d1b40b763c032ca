import { HttpError } from '../../shared/errors/http-error.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';

// What the account page does after "Unlink" / "Replace" of the source-code host.

export type UnlinkEffect =
  /**
   * Unlinked; a source-code-host user links another account at the next sign-in (without a link they
   * do not count as signed in).
   */
  | { type: 'unlinked'; then: 'stay' | 'sign-in' }
  /** The change needs a recent sign-in: the password confirmation, then back to the account page. */
  | { type: 'reauthenticate'; to: string }
  | { type: 'error'; message: string };

export function decideUnlinkEffect(
  input: { ok: true } | { ok: false; error: unknown },
  p: { isGitUser: boolean; identityUrl: string; returnTo: string },
): UnlinkEffect {
  if (input.ok) return { type: 'unlinked', then: p.isGitUser ? 'sign-in' : 'stay' };
  const { error } = input;
  if (
    error instanceof HttpError &&
    (error.body as { errorCode?: unknown } | null)?.errorCode === 'REAUTHENTICATION_REQUIRED'
  ) {
    const to = new URL('/self-service/login/browser', p.identityUrl);
    to.searchParams.set('refresh', 'true');
    to.searchParams.set('return_to', p.returnTo);
    return { type: 'reauthenticate', to: to.toString() };
  }
  return { type: 'error', message: getErrorMessage(error) };
}
