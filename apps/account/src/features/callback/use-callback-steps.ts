import { useState } from 'react';
import type { AccountConfig } from '../../shared/config/env.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import type { TermsDocuments } from '../../shared/users-client/users-client.ts';
import { acceptTerms, initialiseGitAuth } from '../../shared/users-client/users-client.ts';

/** The callback's onboarding stepper actions: link the source-code host, accept the terms. */
export function useCallbackSteps(
  config: AccountConfig,
  userId: string | null,
  reloadSession: () => Promise<unknown>,
) {
  const [busy, setBusy] = useState(false);
  const [formErrors, setFormErrors] = useState<string[]>([]);

  /** Link step: start the source-code host's authorization and leave for its page. */
  async function authenticateGit(): Promise<void> {
    setBusy(true);
    try {
      const { authenticationUrl } = await initialiseGitAuth(config.usersUrl, userId ?? 'callback');
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
      await reloadSession();
    } catch (e) {
      setFormErrors([getErrorMessage(e)]);
    } finally {
      setBusy(false);
    }
  }

  return { busy, formErrors, authenticateGit, accept };
}
