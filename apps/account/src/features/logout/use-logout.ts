import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { createLogoutFlow } from '../../shared/identity-client/identity-client.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { readToken } from '../../shared/oauth2/token-lifecycle.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { clearLoginState } from '../../shared/storage/clear-login-state.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { postLogout } from '../../shared/users-client/users-client.ts';
import { decideLogoutEffect } from './decide-logout-effect.ts';

export interface LogoutSearch {
  logout_challenge?: string;
  post_logout?: string;
}

function complete(): void {
  write(registry.logoutState, 'completed');
  clearLoginState();
  redirectTo(paths.login);
}

/**
 * `cloudAccountSignedIn` answers whether a Microsoft account is still signed in (the route passes the
 * m365 feature's check; features do not import each other).
 */
export function useLogout(search: LogoutSearch, cloudAccountSignedIn: () => Promise<boolean>) {
  const config = getConfig();
  const [error, setError] = useState<string | null>(null);
  const [cloudAccount, setCloudAccount] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    void cloudAccountSignedIn().then((signedIn) => {
      if (live) setCloudAccount(signedIn);
    });
    return () => {
      live = false;
    };
  }, [cloudAccountSignedIn]);
  const claims = tryDecodeJwtPayload(readToken()?.accessToken);
  const command = decideLogoutEffect({
    state: read(registry.logoutState),
    logoutChallenge: search.logout_challenge ?? null,
    postLogout: search.post_logout !== undefined,
    m365: claims?.ext?.user?.authenticationMode === 'm365',
    cloudAccount,
  });

  useCommand(command, (command) => {
    switch (command.type) {
      case 'accept-challenge':
        postLogout(config.usersUrl, { logoutChallenge: command.logoutChallenge }).then(
          ({ redirectTo: target }) => {
            write(registry.logoutState, 'completed');
            redirectTo(target);
          },
          // A 401 falls back to the default return URL; any other logout consent error goes to login.
          () => complete(),
        );
        break;
      case 'complete':
        complete();
        break;
      case 'go-m365-logout':
        navigate(paths.m365Logout, { replace: true });
        break;
      case 'wait':
        break;
      case 'start':
        clearLoginState();
        if (command.cloudSignOut) write(registry.cloudSignOutPending, true);
        createLogoutFlow(
          config.identityUrl,
          new URL('/oauth2/sessions/logout', config.oauth2Url).toString(),
        ).then(
          (flow) => {
            write(registry.logoutState, 'in_progress');
            redirectTo(flow.logout_url);
          },
          (e: unknown) => {
            if (e instanceof HttpError && e.status === 401) complete();
            else {
              console.error('Logout failed', getErrorMessage(e));
              setError(getErrorMessage(e));
            }
          },
        );
        break;
    }
  });

  return { error, label: copy.progress.signingOut };
}
