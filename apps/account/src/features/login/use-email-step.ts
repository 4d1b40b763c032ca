import { useCallback, useEffect, useState } from 'react';
import { LOGIN_CHALLENGE_TTL_MS } from '../../constants.ts';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import type { EmailResult } from '../../shared/storage/registry.ts';
import type { EmailContinue } from './decide-email-continue.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { getLoginConfig } from '../../shared/users-client/users-client.ts';

/**
 * The Email step: the typed address, its login configuration (the email result) and going back.
 * `continueWith` (the step's Continue) keeps the address; `lookUp` fetches its login configuration,
 * run by `useEmailContinue` once the page stays (decide-email-continue.ts).
 */
export function useEmailStep(usersUrl: AccountConfig['usersUrl'], onChange: () => void) {
  const [emailResult, setEmailResultState] = useState<EmailResult | null>(() => read(registry.emailResult));
  const [typedEmail, setTypedEmail] = useState(() => emailResult?.email ?? '');
  const [busy, setBusy] = useState(false);

  const setEmailResult = useCallback((result: EmailResult | null) => {
    if (result) write(registry.emailResult, result);
    else remove(registry.emailResult);
    setEmailResultState(result);
  }, []);

  const lookUp = useCallback(
    async (email: string) => {
      setTypedEmail(email);
      setBusy(true);
      try {
        const found = await getLoginConfig(usersUrl, email);
        setEmailResult({
          email: found.email || email,
          isSSO: found.sso,
          isM365: found.m365,
          provider: found.provider,
          hasMagic: found.magic,
          selfSignUp: found.selfSignUp,
        });
        onChange();
      } catch (error) {
        showToast(copy.errors.verifyingEmail(getErrorMessage(error)));
      } finally {
        setBusy(false);
      }
    },
    [usersUrl, setEmailResult, onChange],
  );

  const continueWith = useCallback(
    (email: string) => {
      write(registry.pendingEmail, { email, expiresAt: Date.now() + LOGIN_CHALLENGE_TTL_MS });
      setTypedEmail(email);
      onChange();
    },
    [onChange],
  );

  const back = useCallback(() => {
    setEmailResult(null);
    onChange();
  }, [setEmailResult, onChange]);

  return { emailResult, setEmailResult, typedEmail, busy, continueWith, lookUp, back };
}

export type EmailStep = ReturnType<typeof useEmailStep>;

/** Runs the answer of `decideEmailContinue`: the kept address is looked up (once) or dropped. */
export function useEmailContinue(decision: EmailContinue, lookUp: EmailStep['lookUp']): void {
  useCommand(decision, (decision) => {
    if (decision.type === 'drop') remove(registry.pendingEmail);
    if (decision.type === 'submit') {
      remove(registry.pendingEmail);
      void lookUp(decision.email);
    }
  });
}

/** Rule 5 of the step selection: an SSO email result is cleared when the session has no oidc method. */
export function useClearSsoEmailResult(
  clear: boolean,
  { emailResult, setEmailResult }: Pick<EmailStep, 'emailResult' | 'setEmailResult'>,
): void {
  useEffect(() => {
    if (clear && emailResult) setEmailResult({ ...emailResult, isSSO: false, provider: null });
  }, [clear, emailResult, setEmailResult]);
}
