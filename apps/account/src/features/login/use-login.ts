import { useCallback, useEffect, useMemo, useReducer, useState } from 'react';
import {
  APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS,
  APPLICATION_LOGIN_LOCK_MS,
  MESSAGE_ID_REAUTHENTICATE,
} from '../../constants.ts';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { classifyFlowError, errorId } from '../../shared/identity-client/handle-flow-error.ts';
import { createLoginFlow, getLoginFlow, submitLogin } from '../../shared/identity-client/identity-client.ts';
import { postHiddenForm } from '../../shared/identity-client/hidden-form.ts';
import {
  csrfToken,
  errorMessages,
  errorTexts,
  flowMessages,
  hasMessage,
  inputValue,
  nodeMessages,
} from '../../shared/identity-client/nodes.ts';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo, replaceLocation, useLocation } from '../../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../../shared/oauth2/jwt.ts';
import { startAuthorization } from '../../shared/oauth2/start-authorization.ts';
import { readToken, removeToken } from '../../shared/oauth2/token-store.ts';
import { isLockHeld } from '../../shared/storage/cookie-lock.ts';
import type { EmailResult } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { getLoginConfig } from '../../shared/users-client/users-client.ts';
import { isAuthenticated, onboardingDue } from '../../shared/session/is-authenticated.ts';
import { useSession } from '../../shared/session/use-session.ts';
import type { LoginCommand } from './decide-login-effect.ts';
import { decideLoginEffect } from './decide-login-effect.ts';
import type { LoginStep } from './select-login-step.ts';
import { selectLoginStep } from './select-login-step.ts';
import { planSsoRedirect, ssoStepView } from './sso-redirect.ts';

export interface LoginSearch {
  flow?: string;
  login_challenge?: string;
  post_logout?: string;
  aal?: string;
}

export type LoginView =
  { kind: 'progress' } | { kind: 'error'; message: string } | { kind: 'step'; step: LoginStep };

/** Thin hook: gathers the inputs, derives the step, runs the effect commands (CONVENTIONS flow rule 2). */
export function useLogin(search: LoginSearch) {
  const config = getConfig();
  const location = useLocation();
  const session = useSession();
  const [emailResult, setEmailResult] = useState<EmailResult | null>(() => read(registry.emailResult));
  const [typedEmail, setTypedEmail] = useState(() => emailResult?.email ?? '');
  const [flow, setFlow] = useState<LoginFlow | null>(null);
  const [busy, setBusy] = useState(false);
  const [formErrors, setFormErrors] = useState<string[]>([]);
  const [fieldErrors, setFieldErrors] = useState<string[]>([]);
  const [sessionReloaded, setSessionReloaded] = useState(false);
  const [tick, rerender] = useReducer((x: number) => x + 1, 0);

  const now = Date.now();
  // Cookies are read on every render (tick forces a fresh read after a write).
  const token = useMemo(() => readToken(), [tick, session.state]);
  const storedChallenge = read(registry.loginChallenge);
  const claims = tryDecodeJwtPayload(token?.accessToken);
  const authInput = {
    tokenAuthMode: claims?.ext?.user?.authenticationMode ?? null,
    session: session.facts,
    disableGitStep: config.disableGitStep,
    now,
  };
  const authenticated = isAuthenticated(authInput);

  const command: LoginCommand = decideLoginEffect({
    application: config.application,
    applicationCookie: read(registry.application),
    urlMap: config.urlMap,
    location,
    queryChallenge: search.login_challenge ?? null,
    storedChallenge,
    sessionState: session.state,
    authenticated,
    onboardingDue: onboardingDue(authInput),
    hasToken: token !== null,
    emailResult,
    resetPasswordInProgress: read(registry.resetPasswordState)?.inProgress === true,
    sessionReloaded,
    loginLockHeld: isLockHeld(read(registry.loginLock), now),
    initialPagePath: initialPagePath(config.initialPage),
  });
  const commandKey = JSON.stringify(command);

  useEffect(() => {
    switch (command.type) {
      case 'redirect-application':
        redirectTo(command.url);
        break;
      case 'store-challenge':
        write(registry.loginChallenge, command.challenge);
        replaceLocation(command.reloadTo);
        break;
      case 'go-m365-login':
        navigate(withQuery(paths.m365Login, { autoContinue: 'true' }), { replace: true });
        break;
      case 'go-forgot-password':
        navigate(paths.forgotPassword, { replace: true });
        break;
      case 'go-initial-page':
        navigate(command.path, { replace: true });
        break;
      case 'go-callback':
        navigate(paths.callback, { replace: true });
        break;
      case 'reload-session':
        setSessionReloaded(true);
        void session.reload();
        break;
      case 'remove-token':
        removeToken();
        rerender();
        break;
      case 'authorize':
        void startAuthorization(config).then((started) => {
          if (!started) rerender();
        });
        break;
      case 'wait': {
        if (session.state === 'loading' || session.state === 'error') break;
        // The login lock expires after 2 s; look again then.
        const timer = setTimeout(rerender, APPLICATION_LOGIN_LOCK_MS);
        return () => clearTimeout(timer);
      }
      case 'none':
        break;
    }
    return undefined;
  }, [commandKey]);

  // A flow id in the query (the identity service's browser redirects) or a pending challenge: load or
  // create the flow now. With a session it decides the step (rules 1 and 3); without one it proves the
  // challenge is still valid, so a stale challenge restarts the authorization before the user types.
  const hasSession = session.state === 'present' || session.state === 'requires-mfa';
  const needsEagerFlow =
    command.type === 'none' && !flow && (Boolean(search.flow) || storedChallenge !== null);
  const stepNeedsFlow = needsEagerFlow && (Boolean(search.flow) || hasSession);
  useEffect(() => {
    if (!needsEagerFlow) return;
    let cancelled = false;
    const load = search.flow
      ? getLoginFlow(config.identityUrl, search.flow)
      : createLoginFlow(config.identityUrl, {
          login_challenge: storedChallenge ?? undefined,
          aal: session.state === 'requires-mfa' ? 'aal2' : undefined,
        });
    load.then(
      (f) => {
        if (cancelled) return;
        setFlow(f);
        // Errors the identity service put on the flow (a provider's refusal after single sign-on,
        // a failed submit) are shown as toasts.
        if (search.flow)
          for (const text of errorTexts(errorMessages(f))) showToast(copy.errors.loginFlow(text));
      },
      (error) => {
        if (!cancelled) handleCreateFlowError(error);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [needsEagerFlow]);

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
  });

  useEffect(() => {
    if (selection.clearSsoEmailResult && emailResult) {
      const updated = { ...emailResult, isSSO: false, provider: null };
      write(registry.emailResult, updated);
      setEmailResult(updated);
    }
  }, [selection.clearSsoEmailResult]);

  /** A login flow could not be created or loaded: a stale challenge restarts the authorization. */
  function handleCreateFlowError(error: unknown): void {
    const challenge = read(registry.loginChallenge);
    if (errorId(error) === 'session_already_available' && challenge) {
      // The identity service accepted the login request already; a browser navigation follows it.
      const url = new URL('/self-service/login/browser', config.identityUrl);
      url.searchParams.set('login_challenge', challenge);
      redirectTo(url.toString());
      return;
    }
    const action = classifyFlowError(error);
    if (action.type === 'redirect') {
      redirectTo(action.url);
      return;
    }
    if (action.type === 'home') {
      navigate(initialPagePath(config.initialPage), { replace: true });
      return;
    }
    // A 4xx on a pending challenge means it is stale (unknown, expired or already used); a network
    // error or 5xx does not, and restarting then would loop through the authorization server.
    const clientError = error instanceof HttpError && error.status >= 400 && error.status < 500;
    if ((challenge && clientError) || action.type === 'restart') {
      // Expired or unknown challenge or flow: start a fresh authorization; the email result is kept.
      remove(registry.loginChallenge);
      setFlow(null);
      if (search.flow) navigate(paths.login, { replace: true });
      void startAuthorization(config).then((started) => {
        if (!started) rerender();
      });
      return;
    }
    showToast(copy.errors.loginFlow(action.type === 'error' ? action.message : getErrorMessage(error)));
  }

  const submitEmail = useCallback(
    async (email: string) => {
      setTypedEmail(email);
      setBusy(true);
      try {
        const cfg = await getLoginConfig(config.usersUrl, email);
        const result: EmailResult = {
          email: cfg.email || email,
          isSSO: cfg.sso,
          isM365: cfg.m365,
          provider: cfg.provider,
        };
        write(registry.emailResult, result);
        setEmailResult(result);
        setFormErrors([]);
        setFieldErrors([]);
      } catch (error) {
        showToast(copy.errors.verifyingEmail(getErrorMessage(error)));
      } finally {
        setBusy(false);
      }
    },
    [config.usersUrl],
  );

  const back = useCallback(() => {
    remove(registry.emailResult);
    setEmailResult(null);
    setFormErrors([]);
    setFieldErrors([]);
  }, []);

  async function obtainFlow(refresh: boolean): Promise<LoginFlow | null> {
    if (flow) return flow;
    try {
      const created = await createLoginFlow(config.identityUrl, {
        login_challenge: read(registry.loginChallenge) ?? undefined,
        refresh,
      });
      setFlow(created);
      return created;
    } catch (error) {
      handleCreateFlowError(error);
      return null;
    }
  }

  // The identifier: the email result, else (password confirmation) the session's or the flow's.
  const identifier =
    emailResult?.email ??
    session.facts?.email ??
    (flow ? inputValue(flow, 'identifier') : undefined) ??
    typedEmail;

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

  async function submitPassword(password: string): Promise<void> {
    if (!identifier) return;
    setBusy(true);
    setFormErrors([]);
    setFieldErrors([]);
    const refresh = selection.step === 'password-confirmation';
    let current: LoginFlow | null = flow;
    try {
      // One quiet retry when the flow expired or its CSRF check failed: a new flow, same input.
      for (let attempt = 1; attempt <= 2; attempt++) {
        current ??= await obtainFlow(refresh);
        if (!current) return;
        try {
          await finishLogin(
            await submitLogin(config.identityUrl, current.id, {
              method: 'password',
              identifier,
              password,
              csrf_token: csrfToken(current),
            }),
          );
          return;
        } catch (error) {
          const action = classifyFlowError(error);
          if (action.type === 'restart' && attempt === 1) {
            setFlow(null);
            current = null;
            continue;
          }
          switch (action.type) {
            case 'rerender': {
              const updated = action.flow as LoginFlow;
              setFlow(updated);
              setFormErrors(errorTexts(flowMessages(updated)));
              setFieldErrors(errorTexts(nodeMessages(updated, 'password')));
              break;
            }
            case 'redirect':
              redirectTo(action.url);
              break;
            case 'home':
              navigate(initialPagePath(config.initialPage), { replace: true });
              break;
            case 'restart':
            case 'unauthorized':
              setFlow(null);
              showToast(copy.errors.loginFlow(getErrorMessage(error)));
              break;
            case 'error':
              showToast(copy.errors.loginFlow(action.message));
              break;
          }
          return;
        }
      }
    } finally {
      setBusy(false);
    }
  }

  /** SPEC §2 step 6: the code goes to an aal2 login flow (method totp). */
  async function submitTotp(code: string): Promise<void> {
    setBusy(true);
    setFormErrors([]);
    try {
      let current = flow?.requested_aal === 'aal2' ? flow : null;
      if (!current) {
        try {
          current = await createLoginFlow(config.identityUrl, {
            aal: 'aal2',
            login_challenge: read(registry.loginChallenge) ?? undefined,
          });
          setFlow(current);
        } catch (error) {
          handleCreateFlowError(error);
          return;
        }
      }
      try {
        await finishLogin(
          await submitLogin(config.identityUrl, current.id, {
            method: 'totp',
            totp_code: code,
            csrf_token: csrfToken(current),
          }),
        );
      } catch (error) {
        const action = classifyFlowError(error);
        switch (action.type) {
          case 'rerender': {
            const updated = action.flow as LoginFlow;
            setFlow(updated);
            setFormErrors(errorTexts([...flowMessages(updated), ...nodeMessages(updated, 'totp_code')]));
            break;
          }
          case 'redirect':
            redirectTo(action.url);
            break;
          case 'home':
            await session.reload();
            break;
          case 'restart':
            setFlow(null);
            showToast(copy.errors.loginFlow(getErrorMessage(error)));
            break;
          default:
            showToast(
              copy.errors.loginFlow(action.type === 'error' ? action.message : getErrorMessage(error)),
            );
        }
      }
    } finally {
      setBusy(false);
    }
  }

  /**
   * SPEC §2 Login step 3: take the SSO redirect lock (10 min), raise the application-login lock to 30 s,
   * count the redirect, and post the hidden form (method oidc, provider, csrf_token) to the flow's action.
   */
  async function redirectToSso(): Promise<void> {
    const provider = emailResult?.provider;
    if (!provider) {
      showToast(copy.errors.loginFlow(copy.errors.unknown));
      return;
    }
    setBusy(true);
    const current = flow ?? (await obtainFlow(false));
    if (!current) {
      setBusy(false);
      return;
    }
    const plan = planSsoRedirect({
      now: Date.now(),
      newId: () => crypto.randomUUID(),
      redirects: read(registry.ssoRedirects) ?? 0,
      flow: { action: current.ui.action, csrfToken: csrfToken(current) },
      provider,
    });
    write(registry.ssoRedirectLock, plan.ssoLock);
    write(registry.ssoRedirects, plan.redirects);
    write(registry.loginLock, plan.loginLock, { ttlMs: APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS });
    postHiddenForm(plan.form.action, plan.form.fields);
  }

  const ssoView = ssoStepView({
    lock: read(registry.ssoRedirectLock),
    redirects: read(registry.ssoRedirects) ?? 0,
    now,
  });

  const mfaSetupDone = useCallback(() => {
    void session.reload();
  }, [session]);

  const view: LoginView =
    session.state === 'error'
      ? { kind: 'error', message: copy.errors.loadingSession(session.error ?? copy.errors.unknown) }
      : command.type !== 'none' || stepNeedsFlow
        ? { kind: 'progress' }
        : { kind: 'step', step: selection.step };

  return {
    view,
    config,
    email: identifier,
    typedEmail,
    emailResult,
    busy,
    formErrors,
    fieldErrors,
    submitEmail,
    submitPassword,
    submitTotp,
    mfaSetupDone,
    ssoView,
    redirectToSso,
    back,
  };
}
