import type { AccountConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths, withQuery } from '../../shared/config/paths.ts';
import { selectPendingDeviceLogin } from '../../shared/session/select-pending-device-login.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { navigate } from '../../shared/navigation/history.ts';
import {
  storeToken,
  // Not a React hook despite its name: it moves the stored token to the Teams medium (or back).
  useTeamsMedium as switchTokenMedium,
} from '../../shared/oauth2/token-lifecycle.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import type { M365Command } from './decide-m365-effect.ts';
import { activateSubscription, activationErrorMessage, isAlreadySubscribed } from './m365-activation.ts';
import { backendLogin, classifyBackendLoginError, tokenFromBackendLogin } from './m365-backend.ts';
import type { M365Driver } from './m365-driver.ts';
import type { PatchM365 } from './m365-login-state.ts';
import { withoutAutoContinue } from './m365-login-state.ts';

// Runs the m365 login screen's commands (decideM365Effect); use-m365-login.ts calls it.

export interface M365CommandContext {
  config: AccountConfig;
  driver: M365Driver;
  patch: PatchM365;
  marketplaceToken: string | null;
  stopAutoContinue: () => void;
}

type Of<T extends M365Command['type']> = Extract<M365Command, { type: T }>;

function teamsToken({ driver, patch }: M365CommandContext): void {
  patch({ teamsPhase: 'running', fatalError: null });
  driver.teamsToken().then(
    (token) => patch({ teamsPhase: 'done', teamsToken: token }),
    (error: unknown) => patch({ teamsPhase: 'failed', fatalError: getErrorMessage(error) }),
  );
}

function redirectLogin(command: Of<'redirect-login'>, ctx: M365CommandContext): void {
  if (command.reason === 'final-step') {
    write(registry.m365RedirectAttempted, true);
    if (ctx.marketplaceToken) write(registry.m365Token, ctx.marketplaceToken);
  }
  ctx.stopAutoContinue();
  // The address typed on the login screen's email step, when that is how the user came here.
  ctx.driver
    .signIn('redirect', {
      redirectStartPage: withoutAutoContinue(),
      loginHint: read(registry.emailResult)?.email,
    })
    .catch((error: unknown) => showToast(getErrorMessage(error)));
}

function acquireTokens({ driver, patch }: M365CommandContext): void {
  patch({ tokensPhase: 'running' });
  driver.acquireTokens().then(
    (tokens) => patch({ tokensPhase: 'done', ...tokens }),
    (error: unknown) => {
      patch({ tokensPhase: 'failed' });
      showToast(getErrorMessage(error));
    },
  );
}

function activate(command: Of<'activate'>, { config, patch }: M365CommandContext): void {
  patch({ activationPhase: 'running' });
  activateSubscription(config.usersUrl, {
    marketplaceToken: command.marketplaceToken,
    identityToken: command.identityToken,
    graphAccessToken: command.directoryToken,
  }).then(
    () => {
      remove(registry.m365ActivationFlag);
      remove(registry.m365Token);
      patch({ activationPhase: 'done' });
    },
    (error: unknown) => {
      // An activation error shows its message and clears the in-progress state.
      remove(registry.m365ActivationFlag);
      if (isAlreadySubscribed(error)) remove(registry.m365Token);
      if (isAlreadySubscribed(error)) patch({ activationPhase: 'failed', outcome: 'already-subscribed' });
      else {
        patch({ activationPhase: 'failed' });
        showToast(activationErrorMessage(error));
      }
    },
  );
}

function loginAtBackend(command: Of<'backend-login'>, { config, driver, patch }: M365CommandContext): void {
  patch({ backendLoginPhase: 'running' });
  backendLogin(config.usersUrl, command.bearer, command.graphAccessToken).then(
    (answer) => {
      switchTokenMedium(driver.isTeams);
      storeToken(tokenFromBackendLogin(answer, Date.now()));
      remove(registry.m365ActivationFlag);
      patch({ backendLoginPhase: 'done', outcome: 'authenticated' });
      navigate(afterM365SignIn(config), { replace: true });
    },
    (error: unknown) => {
      // Failure clears the in-progress state and the activation flag.
      remove(registry.m365ActivationFlag);
      const failure = classifyBackendLoginError(error);
      if (failure.type === 'outcome') {
        patch({
          backendLoginPhase: 'failed',
          outcome: failure.outcome,
          subscriptionUrl: failure.subscriptionUrl,
        });
      } else {
        showToast(failure.message);
        patch({ backendLoginPhase: 'failed', teamsPhase: driver.isTeams ? 'failed' : 'idle' });
        if (driver.isTeams) patch({ fatalError: failure.message });
      }
    },
  );
}

/** The initial page, or the device page whose login request sent the person to sign in here. */
function afterM365SignIn(config: AccountConfig): string {
  const deviceLogin = selectPendingDeviceLogin(
    read(registry.deviceLoginChallenge),
    read(registry.loginChallenge),
  );
  if (deviceLogin) return withQuery(paths.device, { login_challenge: deviceLogin });
  return initialPagePath(config.initialPage);
}

export function runM365Command(command: M365Command, ctx: M365CommandContext): void {
  switch (command.type) {
    case 'none':
      return;
    case 'teams-token':
      return teamsToken(ctx);
    case 'redirect-login':
      return redirectLogin(command, ctx);
    case 'acquire-tokens':
      return acquireTokens(ctx);
    case 'activate':
      return activate(command, ctx);
    case 'backend-login':
      return loginAtBackend(command, ctx);
  }
}
