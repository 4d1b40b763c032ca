import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { classifyFlowError, errorId } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createLogoutFlow,
  createRecoveryFlow,
  getRecoveryFlow,
  getSettingsFlow,
  submitRecovery,
  submitSettings,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken, errorMessages, nodeMessages } from '../../shared/identity-client/nodes.ts';
import type { RecoveryFlow, SettingsFlow } from '../../shared/identity-client/types.ts';
import {
  settingsFlowIdFrom,
  settingsFlowIdFromError,
} from '../../shared/identity-client/settings-flow-id.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { removeToken } from '../../shared/oauth2/token-store.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import type { RecoveryStep } from './select-recovery-step.ts';
import { selectRecoveryStep } from './select-recovery-step.ts';

export interface RecoverySearch {
  flow?: string;
  profileFlow?: string;
}

const errorsOf = (flow: { ui: RecoveryFlow['ui'] }) => errorMessages(flow).map((m) => m.text);

export function useRecovery(search: RecoverySearch) {
  const config = getConfig();
  const [flow, setFlow] = useState<RecoveryFlow | null>(null);
  const [settings, setSettings] = useState<SettingsFlow | null>(null);
  const [sessionExists, setSessionExists] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [fieldErrors, setFieldErrors] = useState<string[]>([]);
  const [pageError, setPageError] = useState<string | null>(null);
  const [email, setEmail] = useState(
    () => read(registry.resetPasswordState)?.email ?? read(registry.emailResult)?.email ?? '',
  );

  const startFresh = useCallback(
    () =>
      createRecoveryFlow(config.identityUrl).then(
        (created) => {
          setFlow(created);
          navigate(withQuery(paths.forgotPassword, { flow: created.id }), { replace: true });
        },
        (error: unknown) => {
          if (errorId(error) === 'session_already_available') setSessionExists(true);
          else setPageError(copy.errors.recoveryFlow(getErrorMessage(error)));
        },
      ),
    [config.identityUrl],
  );

  // The query names the step's flow: a settings flow after the code, else a recovery flow, else none.
  const onFlowParams = useEffectEvent(() => {
    let cancelled = false;
    if (search.profileFlow) {
      getSettingsFlow(config.identityUrl, search.profileFlow).then(
        (f) => !cancelled && setSettings(f),
        (error: unknown) => {
          if (cancelled) return;
          const action = classifyFlowError(error);
          if (action.type === 'redirect') redirectTo(action.url);
          else if (action.type === 'restart' || action.type === 'unauthorized') {
            remove(registry.resetPasswordState);
            navigate(paths.forgotPassword, { replace: true });
          } else setPageError(copy.errors.recoveryFlow(getErrorMessage(error)));
        },
      );
    } else if (search.flow) {
      if (flow?.id === search.flow) return;
      getRecoveryFlow(config.identityUrl, search.flow).then(
        (f) => !cancelled && setFlow(f),
        (error: unknown) => {
          if (cancelled) return;
          // 404/410 (expired) or CSRF: start over.
          if (error instanceof HttpError && [403, 404, 410].includes(error.status)) void startFresh();
          else setPageError(copy.errors.recoveryFlow(getErrorMessage(error)));
        },
      );
    } else {
      void startFresh();
    }
    return () => {
      cancelled = true;
    };
  });
  useEffect(() => onFlowParams(), [search.flow, search.profileFlow]);

  const step: RecoveryStep = selectRecoveryStep({
    sessionExists,
    profileFlow: Boolean(search.profileFlow),
    flowState: search.profileFlow ? (settings ? 'profile' : null) : (flow?.state ?? null),
  });

  async function submitEmail(address: string) {
    if (!flow) return;
    setBusy(true);
    setErrors([]);
    setEmail(address);
    try {
      const next = await submitRecovery(config.identityUrl, flow.id, {
        method: 'code',
        email: address,
        csrf_token: csrfToken(flow),
      });
      setFlow(next);
      setErrors(errorsOf(next));
      if (next.state === 'sent_email') {
        write(registry.resetPasswordState, { inProgress: true, completed: false, email: address });
      }
    } catch (error) {
      handleRecoveryError(error);
    } finally {
      setBusy(false);
    }
  }

  async function submitCode(code: string) {
    if (!flow) return;
    setBusy(true);
    setErrors([]);
    try {
      // Never send the email here: it would resend and invalidate the code (CONTRACT-NOTES §2).
      const next = await submitRecovery(config.identityUrl, flow.id, {
        method: 'code',
        code,
        csrf_token: csrfToken(flow),
      });
      const settingsId = settingsFlowIdFrom(next);
      if (settingsId) {
        toPasswordStep(settingsId);
        return;
      }
      setFlow(next);
      setErrors(errorsOf(next));
    } catch (error) {
      // 422 browser_location_change_required → the settings flow: the Password step.
      const settingsId = settingsFlowIdFromError(error);
      if (settingsId) toPasswordStep(settingsId);
      else handleRecoveryError(error);
    } finally {
      setBusy(false);
    }
  }

  function toPasswordStep(settingsId: string) {
    navigate(withQuery(paths.forgotPassword, { profileFlow: settingsId }), { replace: true });
  }

  function handleRecoveryError(error: unknown) {
    const action = classifyFlowError(error);
    switch (action.type) {
      case 'rerender': {
        const updated = action.flow as RecoveryFlow;
        setFlow(updated);
        setErrors(errorsOf(updated));
        return;
      }
      case 'redirect':
        redirectTo(action.url);
        return;
      case 'home':
        setSessionExists(true);
        return;
      case 'restart':
        showToast(copy.errors.recoveryFlow(getErrorMessage(error)));
        void startFresh();
        return;
      default:
        showToast(
          copy.errors.recoveryFlow(action.type === 'error' ? action.message : getErrorMessage(error)),
        );
    }
  }

  async function submitPassword(password: string) {
    if (!settings) return;
    setBusy(true);
    setErrors([]);
    setFieldErrors([]);
    try {
      const next = await submitSettings(config.identityUrl, settings.id, {
        method: 'password',
        password,
        csrf_token: csrfToken(settings),
      });
      if (next.state === 'success') {
        // Reset done: end the recovery session, then a fresh sign-in with the new password on login.
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
        return;
      }
      setSettings(next);
      setErrors(errorsOf({ ui: { ...next.ui, nodes: [] } }));
      setFieldErrors(nodeMessages(next, 'password').map((m) => m.text));
    } catch (error) {
      const action = classifyFlowError(error);
      if (action.type === 'rerender') {
        const updated = action.flow as SettingsFlow;
        setSettings(updated);
        setErrors(errorsOf({ ui: { ...updated.ui, nodes: [] } }));
        setFieldErrors(nodeMessages(updated, 'password').map((m) => m.text));
      } else if (action.type === 'redirect') {
        redirectTo(action.url);
      } else {
        showToast(
          copy.errors.recoveryFlow(action.type === 'error' ? action.message : getErrorMessage(error)),
        );
      }
    } finally {
      setBusy(false);
    }
  }

  /** Leaving recovery drops the in-progress state, or login would send the user straight back here. */
  function backToLogin() {
    remove(registry.resetPasswordState);
    navigate(paths.login);
  }

  return {
    step,
    email,
    busy,
    errors,
    fieldErrors,
    pageError,
    submitEmail,
    submitCode,
    submitPassword,
    backToLogin,
    config,
  };
}
