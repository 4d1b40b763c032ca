import { useEffect, useRef, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import {
  clearAuthorizationParams,
  readAuthorizationParams,
} from '../../shared/oauth2/authorization-params.ts';
import { redirectUri } from '../../shared/oauth2/authorize-url.ts';
import { startAuthorizationWhenFree } from '../../shared/oauth2/start-authorization.ts';
import { exchangeCode } from '../../shared/oauth2/token-endpoint.ts';
import { readToken, storeToken, tokenFromResponse } from '../../shared/oauth2/token-lifecycle.ts';
import { acquireCookieLock } from '../../shared/storage/cookie-lock.ts';
import type { StorageEntry } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import type { TermsDocuments } from '../../shared/users-client/users-client.ts';
import { acceptTerms, completeGitAuth, initialiseGitAuth } from '../../shared/users-client/users-client.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { useSession } from '../../shared/session/use-session.ts';
import type { SessionFacts } from '../../shared/session/session-facts.ts';
import type { AfterExchangeCommand, CallbackCommand } from './decide-callback-effect.ts';
import { decideAfterExchange, decideCallbackEffect } from './decide-callback-effect.ts';

export interface CallbackSearch {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

/** After a successful exchange: clear the email result, SSO lock and challenge. */
function clearAfterExchange(): void {
  const entries: StorageEntry<unknown>[] = [
    registry.emailResult,
    registry.ssoRedirectLock,
    registry.ssoRedirects,
    registry.ssoTries,
    registry.loginChallenge,
    registry.application,
    registry.missingSessionRetried,
    registry.logoutState,
  ] as StorageEntry<unknown>[];
  for (const entry of entries) remove(entry);
  clearAuthorizationParams();
}

async function exchangeUnderLock(code: string): Promise<void> {
  const config = getConfig();
  const params = readAuthorizationParams();
  const release = await acquireCookieLock(registry.refreshLock);
  if (!release) throw new Error(copy.errors.fullReauth);
  try {
    const response = await exchangeCode({
      oauth2Url: config.oauth2Url,
      clientId: config.clientId,
      code,
      redirectUri: redirectUri(window.location.origin),
      codeVerifier: params?.codeVerifier ?? '',
    });
    storeToken(tokenFromResponse(response, Date.now()));
  } finally {
    release();
  }
}

function tokenAuthMode(): string | null {
  return tryDecodeJwtPayload(readToken()?.accessToken)?.ext?.user?.authenticationMode ?? null;
}

export function useCallbackRoute(search: CallbackSearch) {
  const config = getConfig();
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  /** The onboarding stepper is showing. */
  const [onboarding, setOnboarding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [formErrors, setFormErrors] = useState<string[]>([]);
  /** A host code is single-use: complete it once, however often the effect runs. */
  const completedGitCode = useRef<string | null>(null);
  const params = readAuthorizationParams();
  const command: CallbackCommand = decideCallbackEffect({
    query: search,
    storedState: params?.state ?? null,
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

  useCommand(command, (command) => {
    let cancelled = false;
    function finish(facts: SessionFacts | null) {
      if (afterExchange(facts, Date.now()).type === 'onboarding') {
        // SPEC §3 first-login flag: this sign-in onboards the person (read by the landing page).
        write(registry.firstLogin, true);
        setOnboarding(true);
      } else navigate(initialPagePath(config.initialPage), { replace: true });
    }
    switch (command.type) {
      case 'wait':
        break;
      case 'error':
        setError(command.message);
        break;
      case 'login-2fa-reset':
        // The challenge was used by this login; the login screen renders the 2FA reset for the session.
        remove(registry.loginChallenge);
        navigate(paths.login, { replace: true });
        break;
      case 'authorize':
        void startAuthorizationWhenFree(config);
        break;
      case 'go-initial-page':
        finish(session.facts);
        break;
      case 'exchange':
        exchangeUnderLock(command.code).then(
          () => {
            clearAfterExchange();
            if (!cancelled) finish(session.facts);
          },
          (e: unknown) => {
            if (!cancelled) setError(getErrorMessage(e));
          },
        );
        break;
      case 'git-failed':
        showToast(command.message);
        navigate(paths.callback, { replace: true });
        break;
      case 'git-complete':
        // Back from the source-code host: complete the link, then the remaining steps. On failure the
        // message is shown and the flow restarts at the link step.
        if (completedGitCode.current === command.code) break;
        completedGitCode.current = command.code;
        completeGitAuth(config.usersUrl, { code: command.code, state: command.state })
          .catch((e: unknown) => showToast(getErrorMessage(e)))
          .then(() => session.reload())
          .then(() => {
            if (!cancelled) navigate(paths.callback, { replace: true });
          });
        break;
    }
    return () => {
      cancelled = true;
    };
  });

  // While the stepper shows, its steps follow the session; none left → the initial page.
  const next = onboarding ? afterExchange(session.facts, session.checkedAt) : null;
  const steps = next?.type === 'onboarding' ? next.steps : [];
  const done = onboarding && next?.type === 'go-initial-page';
  const initialPage = initialPagePath(config.initialPage);
  useEffect(() => {
    if (done) navigate(initialPage, { replace: true });
  }, [done, initialPage]);

  /** Link step: start the source-code host's authorization and leave for its page. */
  async function authenticateGit(): Promise<void> {
    setBusy(true);
    try {
      const { authenticationUrl } = await initialiseGitAuth(config.usersUrl, session.facts?.id ?? 'callback');
      redirectTo(authenticationUrl);
    } catch (e) {
      showToast(getErrorMessage(e));
      setBusy(false);
    }
  }

  /** Final Step: record the acceptance, then reload the session (the stepper moves on). */
  async function accept(documents: TermsDocuments): Promise<void> {
    setBusy(true);
    setFormErrors([]);
    try {
      await acceptTerms(config.usersUrl, documents);
      await session.reload();
    } catch (e) {
      setFormErrors([getErrorMessage(e)]);
    } finally {
      setBusy(false);
    }
  }

  return {
    error,
    onboarding: onboarding && !done && command.type !== 'git-complete' && command.type !== 'git-failed',
    steps,
    facts: session.facts,
    busy,
    formErrors,
    authenticateGit,
    accept,
    config,
  };
}
