import { useEffect, useState } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath } from '../../shared/config/paths.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { authorizationParamsFor } from '../../shared/oauth2/authorization-params.ts';
import { readToken } from '../../shared/oauth2/token-lifecycle.ts';
import type { SessionFacts } from '../../shared/session/session-facts.ts';
import { useSession } from '../../shared/session/use-session.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { tokenAuthMode } from './callback-exchange.ts';
import type { AfterExchangeCommand, CallbackCommand } from './decide-callback-effect.ts';
import { decideAfterExchange, decideCallbackEffect } from './decide-callback-effect.ts';
import { useCallbackEffects } from './use-callback-effects.ts';
import { useCallbackSteps } from './use-callback-steps.ts';

export interface CallbackSearch {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

/** The callback route: decides its command (`decideCallbackEffect`), runs it, and shows the onboarding stepper. */
export function useCallbackRoute(search: CallbackSearch) {
  const config = getConfig();
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  /** The onboarding stepper is showing. */
  const [onboarding, setOnboarding] = useState(false);
  // The parameters of the authorization this answer belongs to: the current ones, or the app's own
  // that a server hand-off replaced meanwhile.
  const authorization = authorizationParamsFor(search.state);
  const command: CallbackCommand = decideCallbackEffect({
    query: search,
    storedState: authorization?.state ?? null,
    sessionState: session.state,
    session: session.facts,
    isSsoEmailResult: read(registry.emailResult)?.isSSO === true,
    hasToken: readToken() !== null,
    now: session.checkedAt,
  });
  const afterExchange = (facts: SessionFacts | null, now: number): AfterExchangeCommand =>
    decideAfterExchange({
      session: facts,
      disableGitStep: config.disableGitStep,
      tokenAuthMode: tokenAuthMode(),
      now,
    });
  useCallbackEffects(command, {
    config,
    facts: session.facts,
    codeVerifier: authorization?.codeVerifier ?? '',
    reloadSession: session.reload,
    afterExchange,
    setError,
    setOnboarding,
  });

  // While the stepper shows, its steps follow the session; none left → the initial page.
  const next = onboarding ? afterExchange(session.facts, session.checkedAt) : null;
  const done = onboarding && next?.type === 'go-initial-page';
  const initialPage = initialPagePath(config.initialPage);
  useEffect(() => {
    if (done) navigate(initialPage, { replace: true });
  }, [done, initialPage]);
  const stepActions = useCallbackSteps(config, session.facts?.id ?? null, session.reload);

  return {
    error,
    onboarding: onboarding && !done && command.type !== 'git-complete' && command.type !== 'git-failed',
    steps: next?.type === 'onboarding' ? next.steps : [],
    facts: session.facts,
    ...stepActions,
    config,
  };
}
