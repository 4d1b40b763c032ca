import { useState } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { paths } from '../../shared/config/paths.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { acceptTerms, postConsent, type TermsDocuments } from '../../shared/users-client/users-client.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { useSession } from '../../shared/session/use-session.ts';
import { decideConsentEffect, decideConsentFailure } from './decide-consent-effect.ts';

export function useConsent(search: { consent_challenge?: string }) {
  const config = getConfig();
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  /** The Terms step, when the user service asked for the terms first (null otherwise). */
  const [terms, setTerms] = useState<{ busy: boolean; errors: string[]; retry: () => Promise<void> } | null>(
    null,
  );
  const command = decideConsentEffect({
    challenge: search.consent_challenge ?? null,
    sessionState: session.state,
    sessionId: session.session?.id ?? null,
    retries: read(registry.missingSessionRetried) === true ? 1 : 0,
  });

  useCommand(command, (command) => {
    switch (command.type) {
      case 'wait':
        break;
      case 'error':
        setError(command.message);
        break;
      case 'retry-login':
        // Retry the login once: a fresh authorization from the login page.
        write(registry.missingSessionRetried, true);
        remove(registry.loginChallenge);
        redirectTo(paths.login);
        break;
      case 'accept': {
        const ask = (): Promise<void> =>
          postConsent(config.usersUrl, {
            consentChallenge: command.consentChallenge,
            identitySessionId: command.identitySessionId,
          }).then(
            ({ redirectTo: target }) => {
              remove(registry.missingSessionRetried);
              redirectTo(target);
            },
            (error: unknown) => {
              const failure = decideConsentFailure(
                error instanceof HttpError
                  ? {
                      status: error.status,
                      errorCode: (error.body as { errorCode?: unknown } | null)?.errorCode,
                    }
                  : {},
              );
              if (failure.type === 'error') return setError(failure.message);
              if (failure.type === 'terms') return setTerms({ busy: false, errors: [], retry: ask });
              // The login screen renders the 2FA reset for this session; a fresh authorization follows.
              remove(registry.loginChallenge);
              redirectTo(paths.login);
            },
          );
        void ask();
        break;
      }
    }
  });

  /** Records the acceptance, then asks for the consent again. */
  async function acceptAndContinue(documents: TermsDocuments): Promise<void> {
    if (!terms) return;
    setTerms({ ...terms, busy: true, errors: [] });
    try {
      await acceptTerms(config.usersUrl, documents);
      await terms.retry();
    } catch (e) {
      setTerms({ ...terms, busy: false, errors: [getErrorMessage(e)] });
    }
  }

  return {
    error,
    terms: terms ? { busy: terms.busy, errors: terms.errors, accept: acceptAndContinue } : null,
  };
}
