import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { navigate } from '../../shared/navigation/history.ts';
import {
  clearAuthorizationParams,
  readAuthorizationParams,
} from '../../shared/oauth2/authorization-params.ts';
import { redirectUri } from '../../shared/oauth2/authorize-url.ts';
import { startAuthorization } from '../../shared/oauth2/start-authorization.ts';
import { exchangeCode } from '../../shared/oauth2/token-endpoint.ts';
import { readToken, storeToken, tokenFromResponse } from '../../shared/oauth2/token-store.ts';
import { acquireCookieLock } from '../../shared/storage/cookie-lock.ts';
import type { StorageEntry } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove } from '../../shared/storage/storage.ts';
import { useSession } from '../session/use-session.ts';
import type { SessionFacts } from '../session/session-facts.ts';
import type { CallbackCommand } from './decide-callback-effect.ts';
import { decideAfterExchange, decideCallbackEffect } from './decide-callback-effect.ts';

export interface CallbackSearch {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

/** After a successful exchange: clear the email result, SSO lock and challenge (SPEC §4 Callback). */
function clearAfterExchange(): void {
  const entries: StorageEntry<unknown>[] = [
    registry.emailResult,
    registry.ssoRedirectLock,
    registry.ssoRedirects,
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

export function useCallbackRoute(search: CallbackSearch) {
  const config = getConfig();
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  const params = readAuthorizationParams();
  const command: CallbackCommand = decideCallbackEffect({
    query: search,
    storedState: params?.state ?? null,
    sessionState: session.state,
    session: session.facts,
    isSsoEmailResult: read(registry.emailResult)?.isSSO === true,
    hasToken: readToken() !== null,
    now: Date.now(),
  });
  const commandKey = JSON.stringify(command);

  useEffect(() => {
    let cancelled = false;
    function finish(facts: SessionFacts | null) {
      const next = decideAfterExchange(facts, config.disableGitStep);
      // The onboarding stepper (source-code host, Terms of Service) comes with the onboarding issue;
      // until then every outcome lands on the initial page.
      void next;
      navigate(initialPagePath(config.initialPage), { replace: true });
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
        void startAuthorization(config);
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
    }
    return () => {
      cancelled = true;
    };
  }, [commandKey]);

  return { error };
}
