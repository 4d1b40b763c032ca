import { MESSAGE_ID_REAUTHENTICATE } from '../../constants.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { getConfig } from '../../shared/config/env.ts';
import { hasMessage, inputValue } from '../../shared/identity-client/nodes.ts';
import { useNow } from '../../shared/react/use-now.ts';
import { useSession } from '../../shared/session/use-session.ts';
import type { LoginQuery } from './decide-login-effect.ts';
import { selectLoginStep } from './select-login-step.ts';
import { selectLoginView } from './select-login-view.ts';
import { selectM365Alternative } from './select-m365-alternative.ts';
import { selectPendingDeviceLogin } from '../../shared/session/select-pending-device-login.ts';
import { registry, type EmailResult } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { useClearSsoEmailResult, useEmailContinue, useEmailStep } from './use-email-step.ts';
import { decideEmailContinue } from './decide-email-continue.ts';
import { useLoginCommand } from './use-login-command.ts';
import { useEagerLoginFlow } from './use-eager-login-flow.ts';
import { useLoginSteps } from './use-login-steps.ts';

/** The login route's query parameters (plus `aal`, which a 2FA step-up sets). */
export interface LoginSearch extends LoginQuery {
  flow?: string;
  profileFlow?: string;
  login_challenge?: string;
  aal?: string;
}

const m365AlternativeOf = (config: AccountConfig, emailResult: EmailResult | null) =>
  selectM365Alternative({
    application: config.application,
    urlMap: config.urlMap,
    supportEmail: config.supportEmail,
    hasMagic: emailResult?.hasMagic === true,
    deviceLoginChallenge: selectPendingDeviceLogin(
      read(registry.deviceLoginChallenge),
      read(registry.loginChallenge),
    ),
  });

/**
 * The login screen's hook: gathers the inputs, derives the effect command (`useLoginCommand`), the
 * step (`selectLoginStep`) and the view (`selectLoginView`), and hands each step its submit.
 */
export function useLogin(search: LoginSearch) {
  const config = getConfig();
  const session = useSession();
  const clock = useNow();
  const refresh = clock.refresh;
  // Decisions compare times with the latest of: the last explicit look at the clock, the last
  // session answer. Cookies are read on every render; `refresh` re-renders after a write.
  const now = Math.max(clock.now, session.checkedAt);
  const email = useEmailStep(config.usersUrl, refresh);
  const { emailResult } = email;
  const { command, hasToken, storedChallenge, m365SignIn } = useLoginCommand({
    config,
    search,
    session,
    emailResult,
    now,
    refresh,
  });

  const { loginFlow, stepNeedsFlow, checking } = useEagerLoginFlow({
    config,
    flowId: search.flow,
    sessionState: session.state,
    idle: command.type === 'none',
    storedChallenge,
    refresh,
  });
  const { flow } = loginFlow;
  // An address continued while the page may still leave waits for it, and crosses a round trip.
  const emailContinue = decideEmailContinue({
    pending: read(registry.pendingEmail),
    now,
    hasEmailResult: emailResult !== null,
    pageMayLeave: command.type !== 'none' || checking,
  });
  useEmailContinue(emailContinue, email.lookUp);

  const selection = selectLoginStep({
    flow: flow
      ? {
          requiresVerification: hasMessage(flow, MESSAGE_ID_REAUTHENTICATE),
          requestedAal: flow.requested_aal ?? null,
        }
      : null,
    emailResult,
    requiresMfa: session.state === 'requires-mfa',
    requestedAal: search.aal ?? null,
    session: session.facts,
    hasToken,
    now,
    m365SignIn,
  });

  // The identifier: the email result, else (password confirmation) the session's or the flow's.
  const identifier =
    emailResult?.email ??
    session.facts?.email ??
    (flow ? inputValue(flow, 'identifier') : undefined) ??
    email.typedEmail;
  useClearSsoEmailResult(selection.clearSsoEmailResult, email);
  const steps = useLoginSteps({ config, session, step: selection.step, identifier, now, loginFlow, email });

  return {
    view: selectLoginView({
      command,
      sessionState: session.state,
      sessionError: session.error,
      stepNeedsFlow,
      step: selection.step,
    }),
    config,
    profileFlow: search.profileFlow,
    email: identifier,
    typedEmail: email.typedEmail,
    emailResult,
    submitEmail: email.continueWith,
    ...steps,
    busy: email.busy || steps.busy || emailContinue.type === 'wait' || emailContinue.type === 'submit',
    m365Alternative: m365AlternativeOf(config, emailResult),
  };
}
