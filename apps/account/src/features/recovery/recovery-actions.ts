import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { errorId, handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createLogoutFlow,
  createRecoveryFlow,
  createSettingsFlow,
  getRecoveryFlow,
  getSettingsFlow,
  submitRecovery,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import {
  settingsFlowIdFrom,
  settingsFlowIdFromError,
} from '../../shared/identity-client/settings-flow-id.ts';
import type { RecoveryFlow, SettingsFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { removeToken } from '../../shared/oauth2/token-lifecycle.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove } from '../../shared/storage/storage.ts';
import { decideRecoveryResume } from './decide-recovery-effect.ts';

// The recovery screen's network work, outside React: results are reported through its setters.

export const SECOND_FACTOR_REQUIRED = 'session_aal2_required';

export interface RecoverySetters {
  setFlow: (flow: RecoveryFlow) => void;
  setSettings: (flow: SettingsFlow) => void;
  setSessionExists: (exists: boolean) => void;
  setSecondFactorDue: (due: boolean) => void;
  setPageError: (message: string) => void;
}

const flowError = (error: unknown) => copy.errors.recoveryFlow(getErrorMessage(error));

const resetInProgress = () => read(registry.resetPasswordState)?.inProgress === true;

export function startFreshRecovery(config: AccountConfig, out: RecoverySetters): Promise<void> {
  return createRecoveryFlow(config.identityUrl).then(
    (created) => {
      out.setFlow(created);
      navigate(withQuery(paths.forgotPassword, { flow: created.id }), { replace: true });
    },
    (error: unknown) => {
      if (errorId(error) !== 'session_already_available') {
        out.setPageError(flowError(error));
        return;
      }
      const resume = decideRecoveryResume({
        flowState: null,
        sessionAlreadyAvailable: true,
        resetInProgress: resetInProgress(),
      });
      if (resume === 'password-step') void resumeAtPasswordStep(config, out);
      else out.setSessionExists(true);
    },
  );
}

/**
 * The Password step of a reset whose recovery flow is spent: a new settings flow for the session the
 * code made. Without that session (it ended, or it owes a second factor first) a fresh recovery flow
 * says the code was used, with the address kept; a session of another kind is "already signed in".
 */
async function resumeAtPasswordStep(config: AccountConfig, out: RecoverySetters): Promise<void> {
  try {
    toPasswordStep((await createSettingsFlow(config.identityUrl)).id);
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) {
      showToast(copy.errors.recoveryFlow(copy.forgotPassword.codeUsed));
      void startFreshRecovery(config, out);
    } else out.setSessionExists(true);
  }
}

/**
 * The recovery flow of the query; an expired one (404/410) or a CSRF failure starts over, and a used
 * one (replayed from the history) goes on at the Password step.
 */
export function loadRecoveryFlow(config: AccountConfig, id: string, out: RecoverySetters): Promise<void> {
  return getRecoveryFlow(config.identityUrl, id).then(
    (flow) => {
      const resume = decideRecoveryResume({
        flowState: flow.state ?? null,
        sessionAlreadyAvailable: false,
        resetInProgress: resetInProgress(),
      });
      if (resume === 'password-step') void resumeAtPasswordStep(config, out);
      else out.setFlow(flow);
    },
    (error: unknown) => {
      if (error instanceof HttpError && [403, 404, 410].includes(error.status))
        void startFreshRecovery(config, out);
      else out.setPageError(flowError(error));
    },
  );
}

/** The settings flow the code led to; a second factor still owed shows the 2FA step first. */
export function loadRecoverySettings(config: AccountConfig, id: string, out: RecoverySetters): Promise<void> {
  return getSettingsFlow(config.identityUrl, id).then(
    (f) => {
      out.setSecondFactorDue(false);
      out.setSettings(f);
    },
    (error: unknown) => {
      const startOver = () => {
        remove(registry.resetPasswordState);
        navigate(paths.forgotPassword, { replace: true });
      };
      const fail = () => out.setPageError(flowError(error));
      handleFlowError<SettingsFlow>(error, {
        overrides: { [SECOND_FACTOR_REQUIRED]: () => out.setSecondFactorDue(true) },
        redirect: redirectTo,
        restart: startOver,
        unauthorized: startOver,
        rerender: fail,
        home: fail,
        error: fail,
      });
    },
  );
}

function toPasswordStep(settingsId: string): void {
  navigate(withQuery(paths.forgotPassword, { profileFlow: settingsId }), { replace: true });
}

/** Submits the emailed code; the next flow when it is not accepted, null when on to the Password step. */
export async function sendRecoveryCode(
  config: AccountConfig,
  flow: RecoveryFlow,
  code: string,
): Promise<RecoveryFlow | null> {
  try {
    // Never send the email here: it would resend and invalidate the code.
    const next = await submitRecovery(config.identityUrl, flow.id, {
      method: 'code',
      code,
      csrf_token: csrfToken(flow),
    });
    const settingsId = settingsFlowIdFrom(next);
    if (!settingsId) return next;
    toPasswordStep(settingsId);
    return null;
  } catch (error) {
    // 422 browser_location_change_required → the settings flow: the Password step.
    const settingsId = settingsFlowIdFromError(error);
    if (!settingsId) throw error;
    toPasswordStep(settingsId);
    return null;
  }
}

/** Reset done: end the recovery session, then a fresh sign-in with the new password on login. */
export async function finishReset(config: AccountConfig): Promise<void> {
  remove(registry.resetPasswordState);
  remove(registry.emailResult);
  removeToken();
  try {
    const logout = await createLogoutFlow(
      config.identityUrl,
      new URL(paths.login, window.location.origin).toString(),
    );
    redirectTo(logout.logout_url);
  } catch {
    navigate(paths.login, { replace: true });
  }
}
