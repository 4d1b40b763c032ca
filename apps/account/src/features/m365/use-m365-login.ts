import { useCallback, useEffect, useState } from 'react';
import { IS_TEAMS_QUERY_VALUE } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { navigate } from '../../shared/navigation/history.ts';
// Not a React hook despite its name: it moves the stored token to the Teams medium (or back).
import { useTeamsMedium as switchTokenMedium } from '../../shared/oauth2/token-lifecycle.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { decideM365Effect } from './decide-m365-effect.ts';
import { runM365Command } from './m365-commands.ts';
import type { M365Driver } from './m365-driver.ts';
import type { M365State } from './m365-login-state.ts';
import { hasValidM365Token } from '../../shared/oauth2/m365-token.ts';
import { initialM365State } from './m365-login-state.ts';
import { selectM365View } from './select-m365-view.ts';
import { useM365Continue } from './use-m365-continue.ts';

export interface M365LoginSearch {
  token?: string;
  autoContinue?: string;
  isTeams?: string;
}

export function isTeamsSearch(search: M365LoginSearch): boolean {
  return search.isTeams === IS_TEAMS_QUERY_VALUE;
}

/**
 * The stored m365-token: the marketplace purchase token, kept across the Final Step's one forced
 * redirect sign-in in case the address comes back without it (read only within that sign-in).
 */
function marketplaceTokenOf(search: M365LoginSearch): string | null {
  if (search.token && search.token.length > 0) return search.token;
  return read(registry.m365RedirectAttempted) === true ? read(registry.m365Token) : null;
}

/** The m365 login screen: gathers inputs, derives the view, runs the decided command. */
export function useM365Login(search: M365LoginSearch, driver: M365Driver) {
  const config = getConfig();
  const [state, setState] = useState<M365State>(initialM365State);
  const patch = useCallback((p: Partial<M365State>) => setState((s) => ({ ...s, ...p })), []);
  const marketplaceToken = marketplaceTokenOf(search);
  const [autoContinue, setAutoContinue] = useState(search.autoContinue === 'true');
  const [hasM365Token] = useState(() => hasValidM365Token(Date.now()));

  // In Teams the token lives in local storage (the isTeams flag picks the medium); elsewhere, a cookie.
  useEffect(() => switchTokenMedium(driver.isTeams), [driver.isTeams]);

  const command = decideM365Effect({
    ...driver,
    ...state,
    marketplaceToken,
    activationFlag: read(registry.m365ActivationFlag),
    autoContinue,
    redirectAttempted: read(registry.m365RedirectAttempted) === true,
  });
  useCommand(command, (command) =>
    runM365Command(command, {
      config,
      driver,
      patch,
      marketplaceToken,
      stopAutoContinue: () => setAutoContinue(false),
    }),
  );

  const view = selectM365View({
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
  const { signIn, activate } = useM365Continue(driver, state, patch);
  const continueToApp = useCallback(() => navigate(initialPagePath(config.initialPage)), [config]);
  const retryTeams = useCallback(() => patch({ ...initialM365State }), [patch]);
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
