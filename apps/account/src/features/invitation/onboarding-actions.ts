import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { errorId, handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createSettingsFlow,
  getRecoveryFlow,
  getSettingsFlow,
  submitRecovery,
  whoami,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import {
  settingsFlowIdFrom,
  settingsFlowIdFromError,
} from '../../shared/identity-client/settings-flow-id.ts';
import type { SettingsFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import type { OnboardingState } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { remove } from '../../shared/storage/storage.ts';
import { getInvitationStatus } from '../../shared/users-client/users-client.ts';
import type { InvitationLinkState } from './select-onboarding-step.ts';

// The onboarding effects' work, outside React: each takes what it needs and reports through callbacks.

export const freshOnboarding: OnboardingState = {
  codeSubmitted: false,
  passwordSet: false,
  isSessionRefreshRequired: false,
};

export async function loadLinkState(config: AccountConfig, flow: string): Promise<InvitationLinkState> {
  try {
    return await getInvitationStatus(config.usersUrl, flow);
  } catch (error) {
    return error instanceof HttpError && error.status === 404 ? 'not-found' : 'unavailable';
  }
}

export interface CodeOutcome {
  proceed: (settingsId: string) => void;
  reject: () => void;
  reloadSession: () => void;
  fail: (message: string) => void;
}

/** Submits the invitation code (method code); the caller holds the code lock, released here. */
export async function submitInvitationCode(
  config: AccountConfig,
  flowId: string,
  code: string,
  out: CodeOutcome,
): Promise<void> {
  try {
    const flow = await getRecoveryFlow(config.identityUrl, flowId);
    const result = await submitRecovery(config.identityUrl, flow.id, {
      method: 'code',
      code,
      csrf_token: csrfToken(flow),
    });
    const settingsId = settingsFlowIdFrom(result);
    // A 200 without a settings flow: the code was refused, so the link is no good.
    if (settingsId) out.proceed(settingsId);
    else out.reject();
  } catch (error) {
    const settingsId = settingsFlowIdFromError(error);
    if (settingsId) out.proceed(settingsId);
    else if (errorId(error) === 'session_already_available') out.reloadSession();
    else if (error instanceof HttpError && (error.status === 404 || error.status === 410)) out.reject();
    else out.fail(copy.errors.recoveryFlow(getErrorMessage(error)));
  } finally {
    remove(registry.onboardingCodeLock);
  }
}

/** After the code: the password step's address carries the settings flow it led to. */
export function goToPasswordStep(settingsId: string): void {
  navigate(withQuery(paths.onboarding, { profileFlow: settingsId }), { replace: true });
}

/** The settings flow the code led to, or a new one when it is gone. */
export async function loadSettingsFlow(
  config: AccountConfig,
  profileFlow: string | null,
  fail: (message: string) => void,
): Promise<SettingsFlow | null> {
  if (profileFlow) {
    try {
      return await getSettingsFlow(config.identityUrl, profileFlow);
    } catch {
      // Gone or expired: a new one below.
    }
  }
  try {
    return await createSettingsFlow(config.identityUrl);
  } catch (error) {
    const onError = () => fail(getErrorMessage(error));
    handleFlowError<SettingsFlow>(error, {
      redirect: redirectTo,
      rerender: onError,
      restart: onError,
      home: onError,
      unauthorized: onError,
      error: onError,
    });
    return null;
  }
}

/** Done: refresh the session (the identity now says tosAccepted); a failure does not hold it up. */
export async function refreshSession(config: AccountConfig): Promise<void> {
  await whoami(config.identityUrl, { fresh: true }).catch(() => null);
}
