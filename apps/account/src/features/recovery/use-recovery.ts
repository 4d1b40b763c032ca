import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { errorId, handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createLoginFlow,
  createLogoutFlow,
  createRecoveryFlow,
  getRecoveryFlow,
  getSettingsFlow,
  submitLogin,
  submitRecovery,
  submitSettings,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import type { LoginFlow, RecoveryFlow, SettingsFlow } from '../../shared/identity-client/types.ts';
import {
  settingsFlowIdFrom,
  settingsFlowIdFromError,
} from '../../shared/identity-client/settings-flow-id.ts';
import { useFlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { removeToken } from '../../shared/oauth2/token-lifecycle.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import type { RecoveryStep } from './select-recovery-step.ts';
import { selectRecoveryStep } from './select-recovery-step.ts';

export interface RecoverySearch {
  flow?: string;
  profileFlow?: string;
}

const SECOND_FACTOR_REQUIRED = 'session_aal2_required';

export function useRecovery(search: RecoverySearch) {
  const config = getConfig();
  const [flow, setFlow] = useState<RecoveryFlow | null>(null);
  const [settings, setSettings] = useState<SettingsFlow | null>(null);
  const [sessionExists, setSessionExists] = useState(false);
  /** The code signed the user in at aal1, and their second factor is owed before the new password. */
  const [secondFactorDue, setSecondFactorDue] = useState(false);
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

  /** The settings flow the code led to; a second factor still owed shows the 2FA step first. */
  const loadSettings = useCallback(
    (id: string) =>
      getSettingsFlow(config.identityUrl, id).then(
        (f) => {
          setSecondFactorDue(false);
          setSettings(f);
        },
        (error: unknown) => {
          const startOver = () => {
            remove(registry.resetPasswordState);
            navigate(paths.forgotPassword, { replace: true });
          };
          const fail = () => setPageError(copy.errors.recoveryFlow(getErrorMessage(error)));
          handleFlowError<SettingsFlow>(error, {
            overrides: { [SECOND_FACTOR_REQUIRED]: () => setSecondFactorDue(true) },
            redirect: redirectTo,
            restart: startOver,
            unauthorized: startOver,
            rerender: fail,
            home: fail,
            error: fail,
          });
        },
      ),
    [config.identityUrl],
  );

  // The query names the step's flow: a settings flow after the code, else a recovery flow, else none.
  const onFlowParams = useEffectEvent(() => {
    let cancelled = false;
    if (search.profileFlow) {
      void loadSettings(search.profileFlow);
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
    secondFactorDue,
    flowState: search.profileFlow ? (settings ? 'profile' : null) : (flow?.state ?? null),
  });

  const recovery = useFlowSubmit<RecoveryFlow>({
    toast: copy.errors.recoveryFlow,
    rerender: setFlow,
    home: () => setSessionExists(true),
    restart: (_reason, error) => {
      showToast(copy.errors.recoveryFlow(getErrorMessage(error)));
      void startFresh();
    },
  });
  const password = useFlowSubmit<SettingsFlow>({
    toast: copy.errors.recoveryFlow,
    fields: ['password'],
    rerender: setSettings,
    overrides: { [SECOND_FACTOR_REQUIRED]: () => setSecondFactorDue(true) },
  });
  const secondFactor = useFlowSubmit<LoginFlow>({
    toast: copy.errors.recoveryFlow,
    // Already at the second level: go on to the new password.
    home: () => void (search.profileFlow && loadSettings(search.profileFlow)),
  });

  const submitEmail = (address: string) =>
    recovery.submit(async () => {
      if (!flow) return;
      setEmail(address);
      const next = await submitRecovery(config.identityUrl, flow.id, {
        method: 'code',
        email: address,
        csrf_token: csrfToken(flow),
      });
      setFlow(next);
      recovery.show(next);
      if (next.state === 'sent_email') {
        write(registry.resetPasswordState, { inProgress: true, completed: false, email: address });
      }
    });

  const submitCode = (code: string) =>
    recovery.submit(async () => {
      if (!flow) return;
      try {
        // Never send the email here: it would resend and invalidate the code.
        const next = await submitRecovery(config.identityUrl, flow.id, {
          method: 'code',
          code,
          csrf_token: csrfToken(flow),
        });
        const settingsId = settingsFlowIdFrom(next);
        if (settingsId) return toPasswordStep(settingsId);
        setFlow(next);
        recovery.show(next);
      } catch (error) {
        // 422 browser_location_change_required → the settings flow: the Password step.
        const settingsId = settingsFlowIdFromError(error);
        if (settingsId) toPasswordStep(settingsId);
        else throw error;
      }
    });

  function toPasswordStep(settingsId: string) {
    navigate(withQuery(paths.forgotPassword, { profileFlow: settingsId }), { replace: true });
  }

  /** The second factor of a user who has one: an aal2 login flow, then the new password. */
  const submitTotp = (code: string) =>
    secondFactor.submit(async () => {
      const login = await createLoginFlow(config.identityUrl, { aal: 'aal2' });
      await submitLogin(config.identityUrl, login.id, {
        method: 'totp',
        totp_code: code,
        csrf_token: csrfToken(login),
      });
      if (search.profileFlow) await loadSettings(search.profileFlow);
    });

  const submitPassword = (newPassword: string) =>
    password.submit(async () => {
      if (!settings) return;
      const next = await submitSettings(config.identityUrl, settings.id, {
        method: 'password',
        password: newPassword,
        csrf_token: csrfToken(settings),
      });
      if (next.state !== 'success') {
        setSettings(next);
        password.show(next);
        return;
      }
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
    });

  /** Leaving recovery drops the in-progress state, or login would send the user straight back here. */
  function backToLogin() {
    remove(registry.resetPasswordState);
    navigate(paths.login);
  }

  const current = step === 'password' ? password : step === 'mfa' ? secondFactor : recovery;
  return {
    step,
    email,
    busy: current.busy,
    errors: current.formErrors,
    fieldErrors: password.fieldErrors.password ?? [],
    pageError,
    submitEmail,
    submitCode,
    submitTotp,
    submitPassword,
    backToLogin,
    config,
  };
}
