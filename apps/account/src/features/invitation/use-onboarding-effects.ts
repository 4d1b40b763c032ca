import type { Dispatch, SetStateAction } from 'react';
import { useRef } from 'react';
import { ONBOARDING_CODE_LOCK_MS } from '../../constants.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import type { SettingsFlow } from '../../shared/identity-client/types.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import { tryTakeLock } from '../../shared/storage/cookie-lock.ts';
import type { OnboardingState } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import type { OnboardingCommand, TotpCommand } from './decide-onboarding-effect.ts';
import {
  freshOnboarding,
  goToPasswordStep,
  loadLinkState,
  loadSettingsFlow,
  refreshSession,
  submitInvitationCode,
} from './onboarding-actions.ts';
import type { InvitationLinkState } from './select-onboarding-step.ts';

export interface OnboardingEffectsContext {
  config: AccountConfig;
  reloadSession: () => Promise<unknown>;
  saveState: (next: OnboardingState | null) => void;
  setLink: (link: InvitationLinkState) => void;
  setCodeRejected: (rejected: boolean) => void;
  setSettings: Dispatch<SetStateAction<SettingsFlow | null>>;
  setPageError: (message: string | null) => void;
}

/** Runs the onboarding effect commands; async results are dropped once the command has changed. */
export function useOnboardingEffects(
  command: OnboardingCommand,
  totp: TotpCommand,
  ctx: OnboardingEffectsContext,
) {
  const codeSubmission = useRef(false);
  useCommand(command, (command) => {
    let cancelled = false;
    const live =
      <T>(f: (value: T) => void) =>
      (value: T) =>
        void (!cancelled && f(value));
    switch (command.type) {
      case 'load-link-state':
        void loadLinkState(ctx.config, command.flow).then(live(ctx.setLink));
        break;
      case 'submit-code': {
        if (codeSubmission.current) break;
        codeSubmission.current = true;
        if (!tryTakeLock(registry.onboardingCodeLock, ONBOARDING_CODE_LOCK_MS)) {
          // Another tab is submitting this code: its session shows up here once it is done.
          const timer = setTimeout(() => void ctx.reloadSession(), ONBOARDING_CODE_LOCK_MS);
          return () => clearTimeout(timer);
        }
        void submitInvitationCode(ctx.config, command.flow, command.code, {
          proceed: (settingsId) => {
            ctx.saveState({ ...freshOnboarding, codeSubmitted: true });
            goToPasswordStep(settingsId);
            void ctx.reloadSession();
          },
          reject: () => ctx.setCodeRejected(true),
          reloadSession: () => void ctx.reloadSession(),
          fail: ctx.setPageError,
        });
        break;
      }
      case 'load-settings':
        void loadSettingsFlow(ctx.config, command.profileFlow, live(ctx.setPageError)).then(
          live((flow) => flow && ctx.setSettings(flow)),
        );
        break;
      case 'finish':
        void refreshSession(ctx.config).then(
          live(() => {
            ctx.saveState(null);
            navigate(paths.login, { replace: true });
          }),
        );
        break;
      case 'none':
        break;
    }
    return () => {
      cancelled = true;
    };
  });
  useCommand(totp, (totp) => {
    if (totp.type === 'reload-session') void ctx.reloadSession();
  });
}
