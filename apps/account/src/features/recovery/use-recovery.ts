import { useState } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import type { RecoveryFlow, SettingsFlow } from '../../shared/identity-client/types.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { paths } from '../../shared/config/paths.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove } from '../../shared/storage/storage.ts';
import { decideRecoveryEffect } from './decide-recovery-effect.ts';
import type { RecoverySetters } from './recovery-actions.ts';
import { loadRecoveryFlow, loadRecoverySettings, startFreshRecovery } from './recovery-actions.ts';
import type { RecoveryStep } from './select-recovery-step.ts';
import { selectRecoveryStep } from './select-recovery-step.ts';
import { usePasswordForms, useRecoveryCodeForms } from './use-recovery-forms.ts';

export interface RecoverySearch {
  flow?: string;
  profileFlow?: string;
}

/** Thin hook of the recovery screen: gathers inputs, derives the step, runs its effect and forms. */
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
  const out: RecoverySetters = { setFlow, setSettings, setSessionExists, setSecondFactorDue, setPageError };

  const command = decideRecoveryEffect({ query: search, loadedFlowId: flow?.id ?? null });
  useCommand(command, (command) => {
    let cancelled = false;
    const live =
      <T>(f: (value: T) => void) =>
      (value: T) =>
        void (!cancelled && f(value));
    if (command.type === 'load-settings') void loadRecoverySettings(config, command.id, out);
    if (command.type === 'start-fresh') void startFreshRecovery(config, out);
    if (command.type === 'load-flow') {
      const liveOut = { ...out, setFlow: live(setFlow), setPageError: live(setPageError) };
      void loadRecoveryFlow(config, command.id, liveOut);
    }
    return () => {
      cancelled = true;
    };
  });

  const step: RecoveryStep = selectRecoveryStep({
    sessionExists,
    profileFlow: Boolean(search.profileFlow),
    secondFactorDue,
    flowState: search.profileFlow ? (settings ? 'profile' : null) : (flow?.state ?? null),
  });
  const ctx = { config, profileFlow: search.profileFlow, flow, settings, setEmail, out };
  const { recovery, submitEmail, submitCode } = useRecoveryCodeForms(ctx);
  const { password, secondFactor, submitTotp, submitPassword } = usePasswordForms(ctx);

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
