import { useCallback, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import type { SettingsFlow } from '../../shared/identity-client/types.ts';
import { useSession } from '../../shared/session/use-session.ts';
import type { OnboardingState } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { useTotpSetup } from '../../shared/totp/use-totp-setup.ts';
import { decideOnboardingEffect, decideTotpEffect } from './decide-onboarding-effect.ts';
import type { InvitationLinkState } from './select-onboarding-step.ts';
import { canSkipMfa, selectOnboardingView } from './select-onboarding-step.ts';
import { useOnboardingEffects } from './use-onboarding-effects.ts';
import { useOnboardingForms } from './use-onboarding-forms.ts';

export interface OnboardingSearch {
  flow?: string;
  code?: string;
  profileFlow?: string;
}

/** Thin hook of the invitation onboarding screen: gathers inputs, derives the view, runs its effects. */
export function useOnboarding(search: OnboardingSearch) {
  const config = getConfig();
  const session = useSession();
  const [state, setState] = useState<OnboardingState | null>(() => read(registry.onboardingState));
  const [link, setLink] = useState<InvitationLinkState>('unknown');
  const [codeRejected, setCodeRejected] = useState(false);
  const [mfaSkipped, setMfaSkipped] = useState(false);
  const [mfaCompleted, setMfaCompleted] = useState(false);
  const [settings, setSettings] = useState<SettingsFlow | null>(null);
  const [pageError, setPageError] = useState<string | null>(null);

  /** The onboarding-state cookie (24 h) and its copy in React state. */
  const saveState = useCallback((next: OnboardingState | null) => {
    if (next) write(registry.onboardingState, next);
    else remove(registry.onboardingState);
    setState(next);
  }, []);

  const view = selectOnboardingView({
    query: search,
    sessionState: session.state,
    session: session.facts,
    state,
    link,
    codeRejected,
    mfaCompleted,
    mfaSkipped,
  });
  // 2FA: the shared TOTP setup (a settings flow of its own, so a fresh QR code).
  const totp = useTotpSetup({ enabled: view === 'mfa' });
  // Once completed, the 2FA step stays done (the setup hook is disabled when the view moves on).
  if (totp.status === 'completed' && !mfaCompleted) setMfaCompleted(true);

  const command = decideOnboardingEffect({
    view,
    sessionState: session.state,
    query: search,
    link,
    hasSettings: settings !== null,
  });
  useOnboardingEffects(command, decideTotpEffect(totp.status), {
    config,
    reloadSession: session.reload,
    saveState,
    setLink,
    setCodeRejected,
    setSettings,
    setPageError,
  });
  const forms = useOnboardingForms({ config, settings, setSettings, state, saveState });

  const skipMfa = canSkipMfa(session.facts, session.checkedAt)
    ? () => {
        remove(registry.mfaSetupState);
        setMfaSkipped(true);
      }
    : undefined;
  const sessionError =
    session.state === 'error' ? copy.errors.loadingSession(session.error ?? copy.errors.unknown) : null;

  return {
    view,
    config,
    email: session.facts?.email ?? '',
    ...forms,
    pageError: pageError ?? sessionError ?? (totp.status === 'error' ? totp.pageError : null),
    settingsReady: settings !== null,
    totp,
    skipMfa,
  };
}
