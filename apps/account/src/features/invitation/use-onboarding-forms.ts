import type { Dispatch, SetStateAction } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import { submitSettings } from '../../shared/identity-client/identity-client.ts';
import { csrfToken, errorMessages, nodeMessages } from '../../shared/identity-client/nodes.ts';
import type { SettingsFlow } from '../../shared/identity-client/types.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import type { OnboardingState } from '../../shared/storage/registry.ts';
import type { TermsDocuments } from '../../shared/users-client/users-client.ts';
import { acceptTerms } from '../../shared/users-client/users-client.ts';
import { freshOnboarding } from './onboarding-actions.ts';

export interface OnboardingFormsContext {
  config: AccountConfig;
  settings: SettingsFlow | null;
  setSettings: Dispatch<SetStateAction<SettingsFlow | null>>;
  state: OnboardingState | null;
  saveState: (next: OnboardingState | null) => void;
}

/** The onboarding's two forms: set the password (settings flow), accept the terms. */
export function useOnboardingForms({
  config,
  settings,
  setSettings,
  state,
  saveState,
}: OnboardingFormsContext) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [fieldErrors, setFieldErrors] = useState<string[]>([]);
  const show = (flow: SettingsFlow) => {
    setSettings(flow);
    setErrors(errorMessages({ ui: { ...flow.ui, nodes: [] } }).map((m) => m.text));
    setFieldErrors(nodeMessages(flow, 'password').map((m) => m.text));
  };

  async function submitPassword(password: string): Promise<void> {
    if (!settings) return;
    setBusy(true);
    setErrors([]);
    setFieldErrors([]);
    try {
      const body = { method: 'password' as const, password, csrf_token: csrfToken(settings) };
      const next = await submitSettings(config.identityUrl, settings.id, body);
      if (next.state === 'success')
        saveState({ ...(state ?? freshOnboarding), codeSubmitted: true, passwordSet: true });
      else show(next);
    } catch (error) {
      const onForm = () => setErrors([getErrorMessage(error)]);
      handleFlowError<SettingsFlow>(error, {
        rerender: show,
        redirect: redirectTo,
        restart: () => {
          setSettings(null);
          onForm();
        },
        home: onForm,
        unauthorized: onForm,
        error: (message) => setErrors([message]),
      });
    } finally {
      setBusy(false);
    }
  }

  // Terms: record the acceptance, then a session refresh is required.
  async function accept(documents: TermsDocuments): Promise<void> {
    setBusy(true);
    setErrors([]);
    try {
      const result = await acceptTerms(config.usersUrl, documents);
      if (result.tosAccepted) saveState({ ...(state ?? freshOnboarding), isSessionRefreshRequired: true });
      else setErrors([copy.errors.unknown]);
    } catch (error) {
      setErrors([getErrorMessage(error)]);
    } finally {
      setBusy(false);
    }
  }

  return { busy, errors, fieldErrors, submitPassword, accept };
}
