import { APPLICATION_LOGIN_LOCK_MS } from '../../constants.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { navigate, redirectTo, replaceLocation } from '../../shared/navigation/history.ts';
import { startAuthorization, type AuthorizationConfig } from '../../shared/oauth2/start-authorization.ts';
import { removeToken } from '../../shared/oauth2/token-lifecycle.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';
import { clearLoginState } from '../../shared/storage/clear-login-state.ts';
import { registry } from '../../shared/storage/registry.ts';
import { remove, write } from '../../shared/storage/storage.ts';
import type { LoginCommand } from './decide-login-effect.ts';

export interface LoginEffectsContext {
  config: AuthorizationConfig;
  sessionState: SessionState;
  /** When the held application-login lock expires (null when free). */
  lockExpiresAt: number | null;
  /** The time the command was decided with; a new value means "decide again". */
  now: number;
  /** Reads the clock again, so that the command is decided anew. */
  refresh: () => void;
  reloadSession: () => void;
  /** Records that the session was reloaded once (with a token but no session). */
  markSessionReloaded: () => void;
}

/**
 * How long to wait for a held lock before looking again: until it expires, but at most a quarter of
 * the lock's lifetime, since its holder may release it early (its authorization came back).
 */
export function lockWaitMs(lockExpiresAt: number | null, now: number): number {
  const poll = APPLICATION_LOGIN_LOCK_MS / 4;
  if (lockExpiresAt === null) return poll;
  return Math.min(Math.max(lockExpiresAt - now + 25, 25), poll);
}

/**
 * Runs the login effect commands. A `wait` and an `authorize` that found the lock held must be
 * decided again later even though the command looks the same: they run again whenever the session
 * state, the lock or the decision time changes. (A `wait` decided while the session was loading and
 * a `wait` for a held lock once compared equal, so the timer for the lock was never set and the
 * screen stayed on "Signing you in…".)
 */
export function useLoginEffects(command: LoginCommand, ctx: LoginEffectsContext): void {
  const retryKey =
    command.type === 'wait' || command.type === 'authorize'
      ? [ctx.sessionState, ctx.lockExpiresAt, ctx.now]
      : null;
  useCommand(
    command,
    (command) => {
      switch (command.type) {
        case 'redirect-application':
          redirectTo(command.url);
          break;
        case 'store-challenge':
          write(registry.loginChallenge, command.challenge);
          // The authorize redirect the lock guarded has come back: nothing left to guard.
          remove(registry.loginLock);
          // The challenge leaves the address bar in place: no reload, no second whoami.
          replaceLocation(command.reloadTo);
          break;
        case 'go':
          navigate(command.to, { replace: true });
          break;
        case 'finish-logout':
          // Back from the authorization server's logout: nothing of the old sign-in may remain.
          clearLoginState();
          write(registry.logoutState, 'completed');
          replaceLocation(command.reloadTo);
          ctx.refresh();
          break;
        case 'go-m365-login':
          navigate(withQuery(paths.m365Login, { autoContinue: 'true' }), { replace: true });
          break;
        case 'go-forgot-password':
          navigate(paths.forgotPassword, { replace: true });
          break;
        case 'go-initial-page':
          navigate(command.path, { replace: true });
          break;
        case 'go-callback':
          navigate(paths.callback, { replace: true });
          break;
        case 'reload-session':
          ctx.markSessionReloaded();
          ctx.reloadSession();
          break;
        case 'remove-token':
          removeToken();
          ctx.refresh();
          break;
        case 'authorize':
          void startAuthorization(ctx.config).then((started) => {
            if (!started) ctx.refresh();
          });
          break;
        case 'wait': {
          if (ctx.sessionState === 'loading' || ctx.sessionState === 'error') break;
          // A held lock: look again when it has expired.
          const timer = setTimeout(ctx.refresh, lockWaitMs(ctx.lockExpiresAt, ctx.now));
          return () => clearTimeout(timer);
        }
        case 'oauth2-error':
        case 'none':
          break;
      }
      return undefined;
    },
    retryKey,
  );
}
