import { useCallback, useEffect, useState } from 'react';
import { MESSAGE_ID_REAUTHENTICATE } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { getConfig, m365SignInAvailable } from '../../shared/config/env.ts';
import { initialPagePath } from '../../shared/config/paths.ts';
import { hasMessage, inputValue } from '../../shared/identity-client/nodes.ts';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import { useFlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { redirectTo, useLocation } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { loginLockBlocks } from '../../shared/oauth2/start-authorization.ts';
import { readToken } from '../../shared/oauth2/token-lifecycle.ts';
import { useNow } from '../../shared/react/use-now.ts';
import { isAuthenticated, onboardingDue } from '../../shared/session/is-authenticated.ts';
import { useSession } from '../../shared/session/use-session.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { useWatchedValue } from '../../shared/storage/watch.ts';
import { decideLoginEffect, type LoginQuery } from './decide-login-effect.ts';
import type { LoginStep } from './select-login-step.ts';
import { selectLoginStep } from './select-login-step.ts';
import { selectM365Alternative } from './select-m365-alternative.ts';
import { useEmailStep } from './use-email-step.ts';
import { useLoginEffects } from './use-login-effects.ts';
import { useLoginFlow } from './use-login-flow.ts';
import { useSsoStep } from './use-sso-step.ts';
import { mfaRoutes, useMfaStep } from './use-mfa-step.ts';
import { passwordRoutes, usePasswordStep } from './use-password-step.ts';

/** SPEC §2's login query parameters (plus `aal`, which a 2FA step-up sets). */
export interface LoginSearch extends LoginQuery {
  flow?: string;
  profileFlow?: string;
  login_challenge?: string;
  aal?: string;
}

const readAccessToken = () => readToken()?.accessToken ?? null;

type LoginView =
  | { kind: 'progress' }
  | { kind: 'error'; message: string; mode: 'retry' | 'login' }
  | { kind: 'step'; step: LoginStep };

/**
 * The login screen's hook: gathers the inputs, derives the effect command (`decideLoginEffect`) and
 * the step (`selectLoginStep`), runs the command (`useLoginEffects`) and hands each step its submit.
 */
export function useLogin(search: LoginSearch) {
  const config = getConfig();
  const location = useLocation();
  const session = useSession();
  const clock = useNow();
  const refresh = clock.refresh;
  // Decisions compare times with the latest of: the last explicit look at the clock, the last
  // session answer. Cookies are read on every render; `refresh` re-renders after a write.
  const now = Math.max(clock.now, session.checkedAt);
  const [sessionReloaded, setSessionReloaded] = useState(false);
  const email = useEmailStep(config, refresh);
  const { emailResult, setEmailResult } = email;

  // The cookie hook (5 s): a sign-in finished in another tab re-decides this one (initial page).
  useWatchedValue(readAccessToken);
  const token = readToken();
  const storedChallenge = read(registry.loginChallenge);
  const claims = tryDecodeJwtPayload(token?.accessToken);
  const authInput = {
    tokenAuthMode: claims?.ext?.user?.authenticationMode ?? null,
    session: session.facts,
    disableGitStep: config.disableGitStep,
    now,
  };
  const authenticated = isAuthenticated(authInput);
  const m365SignIn = m365SignInAvailable(config);
  const lock = read(registry.loginLock);
  const lockBlocks = loginLockBlocks(lock, now);

  const command = decideLoginEffect({
    application: config.application,
    applicationCookie: read(registry.application),
    urlMap: config.urlMap,
    location,
    queryChallenge: search.login_challenge ?? null,
    query: search,
    storedChallenge,
    sessionState: session.state,
    authenticated,
    onboardingDue: onboardingDue(authInput),
    hasToken: token !== null,
    emailResult,
    m365SignIn,
    resetPasswordInProgress: read(registry.resetPasswordState)?.inProgress === true,
    sessionReloaded,
    loginLockHeld: lockBlocks,
    initialPagePath: initialPagePath(config.initialPage),
    cloudSignOutPending: read(registry.cloudSignOutPending) === true,
  });
  useLoginEffects(command, {
    config,
    sessionState: session.state,
    lockExpiresAt: lockBlocks && lock ? lock.expiresAt : null,
    now,
    refresh,
    reloadSession: () => void session.reload(),
    markSessionReloaded: () => setSessionReloaded(true),
  });

  // A flow id in the query or a pending challenge: load or create the flow now. With a session it
  // decides the step (rules 1 and 3); without one it proves the challenge is still valid, so a stale
  // challenge restarts the authorization before the user types.
  const hasSession = session.state === 'present' || session.state === 'requires-mfa';
  const needsEagerFlow = command.type === 'none' && (Boolean(search.flow) || storedChallenge !== null);
  const loginFlow = useLoginFlow({
    config,
    flowId: search.flow,
    storedChallenge,
    eager: needsEagerFlow,
    aal2: session.state === 'requires-mfa',
    refresh,
  });
  const { flow, setFlow } = loginFlow;
  const stepNeedsFlow = needsEagerFlow && !flow && (Boolean(search.flow) || hasSession);

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
    hasToken: token !== null,
    now,
    m365SignIn,
  });

  // Rule 5: an SSO email result is cleared when the session has no oidc method.
  useEffect(() => {
    if (selection.clearSsoEmailResult && emailResult)
      setEmailResult({ ...emailResult, isSSO: false, provider: null });
  }, [selection.clearSsoEmailResult, emailResult, setEmailResult]);

  // The identifier: the email result, else (password confirmation) the session's or the flow's.
  const identifier =
    emailResult?.email ??
    session.facts?.email ??
    (flow ? inputValue(flow, 'identifier') : undefined) ??
    email.typedEmail;

  /** After a successful submit: follow continue_with's browser redirect, else reload the session. */
  async function finishLogin(result: unknown): Promise<void> {
    const { continue_with } = result as {
      continue_with?: { action?: string; redirect_browser_to?: string }[];
    };
    const next = continue_with?.find((c) => c.action === 'redirect_browser_to')?.redirect_browser_to;
    setFlow(null);
    if (next) redirectTo(next);
    else await session.reload();
  }

  const passwordSubmitter = useFlowSubmit<LoginFlow>(passwordRoutes(config, setFlow));
  const mfaSubmitter = useFlowSubmit<LoginFlow>(mfaRoutes(setFlow, () => void session.reload()));
  const submitPassword = usePasswordStep({
    config,
    identifier,
    confirmation: selection.step === 'password-confirmation',
    flow,
    setFlow,
    obtainFlow: loginFlow.obtainFlow,
    finishLogin,
    submitter: passwordSubmitter,
  });
  const submitTotp = useMfaStep({
    config,
    obtainFlow: loginFlow.obtainFlow,
    finishLogin,
    submitter: mfaSubmitter,
  });

  const submitBackupCode = useCallback((code: string) => submitTotp(code, 'backup'), [submitTotp]);

  const sso = useSsoStep({ emailResult, flow, obtainFlow: loginFlow.obtainFlow, now, back: email.back });

  const clearPasswordErrors = passwordSubmitter.clear;
  const back = useCallback(() => {
    email.back();
    clearPasswordErrors();
  }, [email, clearPasswordErrors]);

  const reloadSession = session.reload;
  const mfaSetupDone = useCallback(() => void reloadSession(), [reloadSession]);

  const view: LoginView =
    command.type === 'oauth2-error'
      ? { kind: 'error', message: copy.errors.oauth2(command.code, command.description), mode: 'login' }
      : session.state === 'error'
        ? {
            kind: 'error',
            message: copy.errors.loadingSession(session.error ?? copy.errors.unknown),
            mode: 'retry',
          }
        : command.type !== 'none' || stepNeedsFlow
          ? { kind: 'progress' }
          : { kind: 'step', step: selection.step };
  const onMfa = selection.step === 'mfa';

  return {
    view,
    config,
    profileFlow: search.profileFlow,
    email: identifier,
    typedEmail: email.typedEmail,
    emailResult,
    busy: email.busy || passwordSubmitter.busy || mfaSubmitter.busy || sso.busy,
    formErrors: onMfa ? mfaSubmitter.formErrors : passwordSubmitter.formErrors,
    fieldErrors: passwordSubmitter.fieldErrors.password ?? [],
    submitEmail: email.submitEmail,
    submitPassword,
    submitTotp,
    submitBackupCode,
    mfaSetupDone,
    back,
    ssoView: sso.ssoView,
    redirectToSso: sso.redirectToSso,
    anotherEmail: sso.anotherEmail,
    tryAgain: sso.tryAgain,
    m365Alternative: selectM365Alternative({
      application: config.application,
      urlMap: config.urlMap,
      supportEmail: config.supportEmail,
      hasMagic: emailResult?.hasMagic === true,
    }),
  };
}
