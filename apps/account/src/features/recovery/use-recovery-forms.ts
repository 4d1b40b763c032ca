import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import {
  createLoginFlow,
  submitLogin,
  submitRecovery,
  submitSettings,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import type { LoginFlow, RecoveryFlow, SettingsFlow } from '../../shared/identity-client/types.ts';
import { useFlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import type { RecoverySetters } from './recovery-actions.ts';
import {
  finishReset,
  loadRecoverySettings,
  SECOND_FACTOR_REQUIRED,
  sendRecoveryCode,
  startFreshRecovery,
} from './recovery-actions.ts';

export interface RecoveryFormsContext {
  config: AccountConfig;
  profileFlow: string | undefined;
  flow: RecoveryFlow | null;
  settings: SettingsFlow | null;
  setEmail: (email: string) => void;
  out: RecoverySetters;
}

/** Email and code: the recovery flow's two forms. */
export function useRecoveryCodeForms({ config, flow, setEmail, out }: RecoveryFormsContext) {
  const recovery = useFlowSubmit<RecoveryFlow>({
    toast: copy.errors.recoveryFlow,
    rerender: out.setFlow,
    home: () => out.setSessionExists(true),
    restart: (_reason, error) => {
      showToast(copy.errors.recoveryFlow(getErrorMessage(error)));
      void startFreshRecovery(config, out);
    },
  });
  const submitEmail = (address: string) =>
    recovery.submit(async () => {
      if (!flow) return;
      setEmail(address);
      const body = { method: 'code' as const, email: address, csrf_token: csrfToken(flow) };
      const next = await submitRecovery(config.identityUrl, flow.id, body);
      out.setFlow(next);
      recovery.show(next);
      if (next.state === 'sent_email') {
        write(registry.resetPasswordState, { inProgress: true, completed: false, email: address });
      }
    });
  const submitCode = (code: string) =>
    recovery.submit(async () => {
      if (!flow) return;
      const next = await sendRecoveryCode(config, flow, code);
      if (!next) return;
      out.setFlow(next);
      recovery.show(next);
    });
  return { recovery, submitEmail, submitCode };
}

/** The second factor (a user who has one: an aal2 login flow), then the new password. */
export function usePasswordForms({ config, profileFlow, settings, out }: RecoveryFormsContext) {
  const password = useFlowSubmit<SettingsFlow>({
    toast: copy.errors.recoveryFlow,
    fields: ['password'],
    rerender: out.setSettings,
    overrides: { [SECOND_FACTOR_REQUIRED]: () => out.setSecondFactorDue(true) },
  });
  const secondFactor = useFlowSubmit<LoginFlow>({
    toast: copy.errors.recoveryFlow,
    // Already at the second level: go on to the new password.
    home: () => void (profileFlow && loadRecoverySettings(config, profileFlow, out)),
  });
  const submitTotp = (code: string) =>
    secondFactor.submit(async () => {
      const login = await createLoginFlow(config.identityUrl, { aal: 'aal2' });
      const body = { method: 'totp' as const, totp_code: code, csrf_token: csrfToken(login) };
      await submitLogin(config.identityUrl, login.id, body);
      if (profileFlow) await loadRecoverySettings(config, profileFlow, out);
    });
  const submitPassword = (newPassword: string) =>
    password.submit(async () => {
      if (!settings) return;
      const body = { method: 'password' as const, password: newPassword, csrf_token: csrfToken(settings) };
      const next = await submitSettings(config.identityUrl, settings.id, body);
      if (next.state === 'success') return finishReset(config);
      out.setSettings(next);
      password.show(next);
    });
  return { password, secondFactor, submitTotp, submitPassword };
}
