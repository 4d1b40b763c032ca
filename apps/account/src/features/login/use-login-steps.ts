import { useCallback } from 'react';
import type { AccountConfig } from '../../shared/config/env.ts';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import { useFlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import type { SessionResult } from '../../shared/session/use-session.ts';
import type { LoginStep } from './select-login-step.ts';
import type { EmailStep } from './use-email-step.ts';
import type { LoginFlowHandle } from './use-login-flow.ts';
import { decideConfirmationPasskey } from './decide-confirmation-passkey.ts';
import { mfaRoutes, securityKeyOptionsOf, useMfaStep, useSecurityKeyStep } from './use-mfa-step.ts';
import { passwordRoutes, usePasswordStep } from './use-password-step.ts';
import { useSsoStep } from './use-sso-step.ts';
import { usePasskeySignIn } from '../../shared/passkeys/use-passkey-sign-in.ts';

export interface LoginStepsInput {
  /** The services the steps submit to, the initial page after a sign-in, the frames around the app. */
  config: Pick<AccountConfig, 'identityUrl' | 'usersUrl' | 'initialPage' | 'm365'>;
  session: Pick<SessionResult, 'state' | 'reload'>;
  step: LoginStep;
  identifier: string;
  now: number;
  loginFlow: LoginFlowHandle;
  /** The email result, setting it, and `back` to the Email step. */
  email: Pick<EmailStep, 'emailResult' | 'setEmailResult' | 'back'>;
}

/** "Use a passkey" on the Password confirmation step, for a person with one. */
function confirmationPasskeyOf(step: LoginStep, passkey: ReturnType<typeof usePasskeySignIn>) {
  const offered = decideConfirmationPasskey({
    step,
    available: passkey.available,
    hasChallenge: passkey.hasChallenge,
  });
  return offered ? { signIn: passkey.signIn, formErrors: passkey.formErrors } : undefined;
}

/** Each login step's submit: password (or its confirmation), second factor, SSO. */
export function useLoginSteps(input: LoginStepsInput) {
  const { config, session, loginFlow, email } = input;
  const { flow, setFlow, obtainFlow } = loginFlow;
  const { identityUrl } = config;

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

  const passwordSubmitter = useFlowSubmit<LoginFlow>(passwordRoutes(config.initialPage, setFlow));
  const mfaSubmitter = useFlowSubmit<LoginFlow>(mfaRoutes(setFlow, () => void session.reload()));
  const submitPassword = usePasswordStep({
    identityUrl,
    identifier: input.identifier,
    confirmation: input.step === 'password-confirmation',
    loginFlow,
    finishLogin,
    submitter: passwordSubmitter,
  });
  const passkeySubmitter = useFlowSubmit<LoginFlow>(passwordRoutes(config.initialPage, setFlow));
  const passkey = usePasskeySignIn({
    config,
    // Only while nobody is signed in: the Email step can flash by during the redirects after a sign-in.
    active: input.step === 'email' && session.state === 'none',
    flow,
    obtainFlow,
    setEmailResult: email.setEmailResult,
    finishLogin,
    submitter: passkeySubmitter,
  });
  const submitTotp = useMfaStep({ identityUrl, obtainFlow, finishLogin, submitter: mfaSubmitter });
  const askSecurityKey = useSecurityKeyStep({
    identityUrl,
    obtainFlow,
    finishLogin,
    submitter: mfaSubmitter,
  });
  const securityKeyOffered = securityKeyOptionsOf(flow) !== null && passkey.available;
  const submitBackupCode = useCallback((code: string) => submitTotp(code, 'backup'), [submitTotp]);
  const sso = useSsoStep({
    identityUrl,
    frameAncestors: config.m365?.extraFrameAncestors ?? [],
    now: input.now,
    loginFlow,
    email,
  });

  const clearPasswordErrors = passwordSubmitter.clear;
  const emailBack = email.back;
  const back = useCallback(() => {
    emailBack();
    clearPasswordErrors();
  }, [emailBack, clearPasswordErrors]);
  const reloadSession = session.reload;
  const mfaSetupDone = useCallback(() => void reloadSession(), [reloadSession]);
  const onMfa = input.step === 'mfa';

  return {
    busy: passwordSubmitter.busy || mfaSubmitter.busy || sso.busy || passkeySubmitter.busy,
    passkey,
    formErrors: onMfa ? mfaSubmitter.formErrors : passwordSubmitter.formErrors,
    fieldErrors: passwordSubmitter.fieldErrors.password ?? [],
    submitPassword,
    submitTotp,
    submitBackupCode,
    securityKey: securityKeyOffered ? askSecurityKey : undefined,
    confirmationPasskey: confirmationPasskeyOf(input.step, passkey),
    mfaSetupDone,
    back,
    ssoView: sso.ssoView,
    ssoPopupStatus: sso.popupStatus,
    redirectToSso: sso.redirectToSso,
    anotherEmail: sso.anotherEmail,
    tryAgain: sso.tryAgain,
    choosePassword: sso.choosePassword,
  };
}
