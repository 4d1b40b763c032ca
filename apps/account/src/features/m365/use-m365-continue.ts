import { useState } from 'react';
import { M365_ACTIVATION_FLAG_ON } from '../../constants.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { decideFinalStepContinue } from './decide-final-step-continue.ts';
import type { M365Driver } from './m365-driver.ts';
import type { M365State, PatchM365 } from './m365-login-state.ts';
import { initialM365State, isCancellation } from './m365-login-state.ts';

/** The m365 login screen's two Continue buttons: on the login mode and on the Final Step. */
export function useM365Continue(driver: M365Driver, state: M365State, patch: PatchM365) {
  const [errorsMuted, setErrorsMuted] = useState(false);

  /** Continue on the login mode: a popup in the browser, the SDK's token again in Teams. */
  const signIn = () => {
    patch({ ...initialM365State });
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
    const teamsReset = {
      teamsPhase: 'idle',
      teamsToken: null,
      backendLoginPhase: 'idle',
      fatalError: null,
    } as const;
    patch({
      activationPhase: 'idle',
      ...(state.tokensPhase === 'failed' ? { tokensPhase: 'idle' as const } : {}),
      ...(step.type === 'teams-token' ? teamsReset : {}),
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

  return { signIn, activate };
}
