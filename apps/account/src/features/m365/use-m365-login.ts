import { useCallback, useEffect, useState } from 'react';
import { IS_TEAMS_QUERY_VALUE, M365_ACTIVATION_FLAG_ON } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import {
  readToken,
  storeToken,
  // Not a React hook despite its name: it moves the stored token to the Teams medium (or back).
  useTeamsMedium as switchTokenMedium,
} from '../../shared/oauth2/token-lifecycle.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import type { Phase } from './decide-m365-effect.ts';
import { decideM365Effect } from './decide-m365-effect.ts';
import { decideFinalStepContinue } from './decide-final-step-continue.ts';
import { activateSubscription, activationErrorMessage, isAlreadySubscribed } from './m365-activation.ts';
import { backendLogin, classifyBackendLoginError, tokenFromBackendLogin } from './m365-backend.ts';
import type { M365Driver } from './m365-driver.ts';
import type { M365Outcome, M365View } from './select-m365-view.ts';
import { selectM365View } from './select-m365-view.ts';

export interface M365LoginSearch {
  token?: string;
  autoContinue?: string;
  isTeams?: string;
}

export function isTeamsSearch(search: M365LoginSearch): boolean {
  return search.isTeams === IS_TEAMS_QUERY_VALUE;
}

interface State {
  teamsPhase: Phase;
  teamsToken: string | null;
  tokensPhase: Phase;
  identityToken: string | null;
  directoryToken: string | null;
  activationPhase: Phase;
  backendLoginPhase: Phase;
  outcome: M365Outcome | null;
  fatalError: string | null;
  subscriptionUrl: string | null;
}

const initial: State = {
  teamsPhase: 'idle',
  teamsToken: null,
  tokensPhase: 'idle',
  identityToken: null,
  directoryToken: null,
  activationPhase: 'idle',
  backendLoginPhase: 'idle',
  outcome: null,
  fatalError: null,
  subscriptionUrl: null,
};

function hasValidM365Token(now: number): boolean {
  const token = readToken();
  if (!token || (token.expiresAt !== null && token.expiresAt <= now)) return false;
  return tryDecodeJwtPayload(token.accessToken)?.ext?.user?.authenticationMode === 'm365';
}

/** The current URL without autoContinue (a redirect sign-in must not come back to another one). */
function withoutAutoContinue(): string {
  const params = new URLSearchParams(window.location.search);
  params.delete('autoContinue');
  const qs = params.toString();
  return `${window.location.origin}${window.location.pathname}${qs ? `?${qs}` : ''}`;
}

/** The m365 login screen: gathers inputs, derives the view, runs the decided command. */
export function useM365Login(search: M365LoginSearch, driver: M365Driver) {
  const config = getConfig();
  const [state, setState] = useState<State>(initial);
  const patch = useCallback((p: Partial<State>) => setState((s) => ({ ...s, ...p })), []);
  // SPEC §3 m365-token: the marketplace purchase token, kept across the Final Step's one forced
  // redirect sign-in in case the address comes back without it (read only within that sign-in).
  const marketplaceToken =
    search.token && search.token.length > 0
      ? search.token
      : read(registry.m365RedirectAttempted) === true
        ? read(registry.m365Token)
        : null;
  const [autoContinue, setAutoContinue] = useState(search.autoContinue === 'true');
  const [hasM365Token] = useState(() => hasValidM365Token(Date.now()));
  const [errorsMuted, setErrorsMuted] = useState(false);

  // In Teams the token lives in local storage (the isTeams flag picks the medium); elsewhere, a cookie.
  useEffect(() => switchTokenMedium(driver.isTeams), [driver.isTeams]);

  const command = decideM365Effect({
    isTeams: driver.isTeams,
    interaction: driver.interaction,
    teamsPhase: state.teamsPhase,
    teamsToken: state.teamsToken,
    hasAccount: driver.hasAccount,
    identityToken: state.identityToken,
    directoryToken: state.directoryToken,
    tokensPhase: state.tokensPhase,
    marketplaceToken,
    activationFlag: read(registry.m365ActivationFlag),
    activationPhase: state.activationPhase,
    backendLoginPhase: state.backendLoginPhase,
    outcome: state.outcome,
    autoContinue,
    redirectAttempted: read(registry.m365RedirectAttempted) === true,
  });
  useCommand(command, (command) => {
    const d = driver;
    switch (command.type) {
      case 'none':
        return;
      case 'teams-token':
        patch({ teamsPhase: 'running', fatalError: null });
        d.teamsToken().then(
          (token) => patch({ teamsPhase: 'done', teamsToken: token }),
          (error: unknown) => patch({ teamsPhase: 'failed', fatalError: getErrorMessage(error) }),
        );
        return;
      case 'redirect-login':
        if (command.reason === 'final-step') {
          write(registry.m365RedirectAttempted, true);
          if (marketplaceToken) write(registry.m365Token, marketplaceToken);
        }
        setAutoContinue(false);
        // The address typed on the login screen's email step, when that is how the user came here.
        d.signIn('redirect', {
          redirectStartPage: withoutAutoContinue(),
          loginHint: read(registry.emailResult)?.email,
        }).catch((error: unknown) => showToast(getErrorMessage(error)));
        return;
      case 'acquire-tokens':
        patch({ tokensPhase: 'running' });
        d.acquireTokens().then(
          (tokens) => patch({ tokensPhase: 'done', ...tokens }),
          (error: unknown) => {
            patch({ tokensPhase: 'failed' });
            showToast(getErrorMessage(error));
          },
        );
        return;
      case 'activate':
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
            if (isAlreadySubscribed(error))
              patch({ activationPhase: 'failed', outcome: 'already-subscribed' });
            else {
              patch({ activationPhase: 'failed' });
              showToast(activationErrorMessage(error));
            }
          },
        );
        return;
      case 'backend-login':
        patch({ backendLoginPhase: 'running' });
        backendLogin(config.usersUrl, command.bearer, command.graphAccessToken).then(
          (answer) => {
            switchTokenMedium(d.isTeams);
            storeToken(tokenFromBackendLogin(answer, Date.now()));
            remove(registry.m365ActivationFlag);
            patch({ backendLoginPhase: 'done', outcome: 'authenticated' });
            navigate(initialPagePath(config.initialPage), { replace: true });
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
              patch({ backendLoginPhase: 'failed', teamsPhase: d.isTeams ? 'failed' : 'idle' });
              if (d.isTeams) patch({ fatalError: failure.message });
            }
          },
        );
        return;
    }
  });

  const view: M365View = selectM365View({
    isTeams: driver.isTeams,
    interaction: driver.interaction,
    busy:
      state.backendLoginPhase === 'running' ||
      state.teamsPhase === 'running' ||
      (driver.isTeams && state.teamsPhase === 'idle') ||
      (!marketplaceToken && state.tokensPhase === 'running'),
    outcome: state.outcome,
    fatalError: state.fatalError,
    marketplaceToken,
    hasM365Token,
  });

  /** Continue on the login mode: a popup in the browser, the SDK's token again in Teams. */
  const signIn = () => {
    patch({ ...initial });
    if (driver.isTeams) return; // the Teams token is fetched again
    driver.signIn('popup').catch((error: unknown) => {
      if (!isCancellation(error)) showToast(getErrorMessage(error));
    });
  };

  /**
   * Continue on the Final Step (`decideFinalStepContinue`): inside Teams the host's token again; in
   * the browser without an account, the silent sign-in, or a popup once a silent one failed (its
   * error muted); signed in, the tokens again after a failed fetch, then the activation.
   */
  const activate = () => {
    write(registry.m365ActivationFlag, M365_ACTIVATION_FLAG_ON);
    const step = decideFinalStepContinue({
      isTeams: driver.isTeams,
      hasAccount: driver.hasAccount,
      errorsMuted,
    });
    patch({
      activationPhase: 'idle',
      ...(state.tokensPhase === 'failed' ? { tokensPhase: 'idle' as const } : {}),
      ...(step.type === 'teams-token'
        ? {
            teamsPhase: 'idle' as const,
            teamsToken: null,
            backendLoginPhase: 'idle' as const,
            fatalError: null,
          }
        : {}),
    });
    if (step.type !== 'sign-in') return;
    const failed = (error: unknown) => {
      remove(registry.m365ActivationFlag);
      if (!isCancellation(error)) showToast(getErrorMessage(error));
      patch({ activationPhase: 'idle' });
    };
    const loginHint = read(registry.emailResult)?.email;
    driver.signIn(step.kind, { loginHint }).catch((error: unknown) => {
      if (step.kind !== 'silent') return failed(error);
      // A failed silent sign-in is muted: a popup follows, and every later Continue uses one.
      setErrorsMuted(true);
      return driver.signIn('popup', { loginHint }).catch(failed);
    });
  };

  const continueToApp = useCallback(() => navigate(initialPagePath(config.initialPage)), [config]);
  const retryTeams = useCallback(() => patch({ ...initial }), [patch]);
  const openSubscription = (url: string) => {
    driver.openExternal(url).catch((e: unknown) => showToast(getErrorMessage(e)));
  };

  return {
    view,
    isTeams: driver.isTeams,
    username: driver.username,
    appName: config.appName,
    supportEmail: config.supportEmail,
    subscriptionUrl: state.subscriptionUrl ?? config.m365?.subscriptionUrl ?? null,
    fatalError: state.fatalError,
    activating:
      state.activationPhase === 'running' || (!!marketplaceToken && state.backendLoginPhase === 'running'),
    signingIn: driver.interaction === 'login' || driver.interaction === 'acquireToken',
    signIn,
    activate,
    continueToApp,
    retryTeams,
    openSubscription,
    loginPath: withQuery(paths.m365Login, { isTeams: driver.isTeams ? IS_TEAMS_QUERY_VALUE : undefined }),
    copy: copy.m365,
  };
}

function isCancellation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { errorCode?: unknown }).errorCode;
  return code === 'user_cancelled' || code === 'access_denied';
}
