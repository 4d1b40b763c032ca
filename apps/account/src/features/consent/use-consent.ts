import { useState } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { paths } from '../../shared/config/paths.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import {
  acceptTerms,
  getConsentScreen,
  postConsent,
  type ConsentScreenData,
  type TermsDocuments,
} from '../../shared/users-client/users-client.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { useSession } from '../../shared/session/use-session.ts';
import {
  decideConsentEffect,
  decideConsentFailure,
  type ConsentScreenState,
} from './decide-consent-effect.ts';

export function useConsent(search: { consent_challenge?: string }) {
  const config = getConfig();
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  /** The Terms step, when the user service asked for the terms first (null otherwise). */
  const [terms, setTerms] = useState<{ busy: boolean; errors: string[]; retry: () => Promise<void> } | null>(
    null,
  );
  const [request, setRequest] = useState<ConsentScreenData | null>(null);
  const [reading, setReading] = useState(false);
  /** Allow or Deny sent: the buttons stay disabled until the browser leaves. */
  const [answering, setAnswering] = useState(false);
  const screen: ConsentScreenState = request
    ? { state: 'read', needsConsent: request.needsConsent }
    : { state: reading ? 'reading' : 'unread' };
  const command = decideConsentEffect({
    challenge: search.consent_challenge ?? null,
    sessionState: session.state,
    sessionId: session.session?.id ?? null,
    retries: read(registry.missingSessionRetried) === true ? 1 : 0,
    screen,
  });

  const failed = (error: unknown, retry: () => Promise<void>): void =>
    routeFailure(error, { setError, askTerms: () => setTerms({ busy: false, errors: [], retry }) });

  const send = (ids: ConsentIds, decision?: 'allow' | 'deny'): Promise<void> =>
    answerConsent(config.usersUrl, ids, decision).catch((error: unknown) => {
      setAnswering(false);
      failed(error, () => send(ids, decision));
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
      case 'ask':
        break;
      case 'read-request': {
        setReading(true);
        const readRequest = (): Promise<void> =>
          getConsentScreen(config.usersUrl, command.consentChallenge).then(setRequest, (error: unknown) =>
            failed(error, readRequest),
          );
        void readRequest();
        break;
      }
      case 'accept':
        void send(command);
        break;
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

  /** The person's Allow or Deny on the consent screen. */
  function answer(decision: 'allow' | 'deny'): void {
    if (command.type !== 'ask' || answering) return;
    setAnswering(true);
    void send(command, decision);
  }

  return {
    error,
    /** The consent screen, when the person is asked (null otherwise). */
    consent: command.type === 'ask' && request ? { request, busy: answering, answer } : null,
    terms: terms ? { busy: terms.busy, errors: terms.errors, accept: acceptAndContinue } : null,
  };
}

interface ConsentIds {
  consentChallenge: string;
  identitySessionId: string;
}

/** Sends the consent (with the person's answer, when asked) and follows where it leads. */
async function answerConsent(usersUrl: string, ids: ConsentIds, decision?: 'allow' | 'deny'): Promise<void> {
  const body = { consentChallenge: ids.consentChallenge, identitySessionId: ids.identitySessionId };
  const { redirectTo: target } = await postConsent(usersUrl, decision ? { ...body, decision } : body);
  remove(registry.missingSessionRetried);
  redirectTo(target);
}

/** A refused read or answer: the 2FA reset at the login, the Terms step, or the error. */
function routeFailure(
  error: unknown,
  on: { setError: (message: string) => void; askTerms: () => void },
): void {
  const failure = decideConsentFailure(
    error instanceof HttpError
      ? { status: error.status, errorCode: (error.body as { errorCode?: unknown } | null)?.errorCode }
      : {},
  );
  if (failure.type === 'error') return on.setError(failure.message);
  if (failure.type === 'terms') return on.askTerms();
  // The login screen renders the 2FA reset for this session; a fresh authorization follows.
  remove(registry.loginChallenge);
  redirectTo(paths.login);
}
