import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import { ONBOARDING_CODE_LOCK_MS } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { errorId, handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createSettingsFlow,
  getRecoveryFlow,
  getSettingsFlow,
  submitRecovery,
  submitSettings,
  whoami,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken, errorMessages, nodeMessages } from '../../shared/identity-client/nodes.ts';
import type { SettingsFlow } from '../../shared/identity-client/types.ts';
import {
  settingsFlowIdFrom,
  settingsFlowIdFromError,
} from '../../shared/identity-client/settings-flow-id.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { tryTakeLock } from '../../shared/storage/cookie-lock.ts';
import type { OnboardingState } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { useTotpSetup } from '../../shared/totp/use-totp-setup.ts';
import type { TermsDocuments } from '../../shared/users-client/users-client.ts';
import { acceptTerms, getInvitationStatus } from '../../shared/users-client/users-client.ts';
import { useSession } from '../../shared/session/use-session.ts';
import type { InvitationLinkState } from './select-onboarding-step.ts';
import { canSkipMfa, selectOnboardingView } from './select-onboarding-step.ts';

export interface OnboardingSearch {
  flow?: string;
  code?: string;
  profileFlow?: string;
}

const fresh: OnboardingState = { codeSubmitted: false, passwordSet: false, isSessionRefreshRequired: false };

/** Thin hook of the invitation onboarding screen: gathers inputs, derives the view, runs its effects. */
export function useOnboarding(search: OnboardingSearch) {
  const config = getConfig();
  const session = useSession();
  const [state, setState] = useState<OnboardingState | null>(() => read(registry.onboardingState));
  const [link, setLink] = useState<InvitationLinkState>('unknown');
  const [codeRejected, setCodeRejected] = useState(false);
  const [mfaSkipped, setMfaSkipped] = useState(false);
  const [mfaCompleted, setMfaCompleted] = useState(false);
  const reloadSession = session.reload;
  const [settings, setSettings] = useState<SettingsFlow | null>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [fieldErrors, setFieldErrors] = useState<string[]>([]);
  const [pageError, setPageError] = useState<string | null>(null);
  const codeSubmission = useRef(false);
  const lockTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(lockTimer.current), []);

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

  // The public state of the link, asked only when there is no session and the link has a code.
  const needsLinkState =
    session.state === 'none' && Boolean(search.flow && search.code) && link === 'unknown';
  useEffect(() => {
    if (!needsLinkState || !search.flow) return;
    let cancelled = false;
    getInvitationStatus(config.usersUrl, search.flow).then(
      (s) => !cancelled && setLink(s),
      (error: unknown) => {
        if (cancelled) return;
        setLink(error instanceof HttpError && error.status === 404 ? 'not-found' : 'unavailable');
      },
    );
    return () => {
      cancelled = true;
    };
  }, [needsLinkState, config.usersUrl, search.flow]);

  async function submitCode(): Promise<void> {
    const flowId = search.flow;
    const code = search.code;
    if (!flowId || !code) return;
    if (!tryTakeLock(registry.onboardingCodeLock, ONBOARDING_CODE_LOCK_MS)) {
      // Another tab is submitting this code: its session shows up here once it is done.
      lockTimer.current = setTimeout(() => void session.reload(), ONBOARDING_CODE_LOCK_MS);
      return;
    }
    const proceed = (settingsId: string) => {
      saveState({ ...fresh, codeSubmitted: true });
      navigate(withQuery(paths.onboarding, { profileFlow: settingsId }), { replace: true });
      void session.reload();
    };
    try {
      const flow = await getRecoveryFlow(config.identityUrl, flowId);
      const result = await submitRecovery(config.identityUrl, flow.id, {
        method: 'code',
        code,
        csrf_token: csrfToken(flow),
      });
      const settingsId = settingsFlowIdFrom(result);
      // A 200 without a settings flow: the code was refused, so the link is no good.
      if (settingsId) proceed(settingsId);
      else setCodeRejected(true);
    } catch (error) {
      const settingsId = settingsFlowIdFromError(error);
      if (settingsId) proceed(settingsId);
      else if (errorId(error) === 'session_already_available') void session.reload();
      else if (error instanceof HttpError && (error.status === 404 || error.status === 410)) {
        setCodeRejected(true);
      } else setPageError(copy.errors.recoveryFlow(getErrorMessage(error)));
    } finally {
      remove(registry.onboardingCodeLock);
    }
  }

  // Email: the invitation code is submitted automatically, once, under a lock (method code).
  const onEmailView = useEffectEvent(() => {
    if (codeSubmission.current) return;
    codeSubmission.current = true;
    void submitCode();
  });
  useEffect(() => {
    if (view === 'email') onEmailView();
  }, [view]);

  // Password: the settings flow the code led to (or a new one when it is gone).
  const hasSettings = settings !== null;
  useEffect(() => {
    if (view !== 'password' || hasSettings) return;
    let cancelled = false;
    const create = () =>
      createSettingsFlow(config.identityUrl).then(
        (f) => !cancelled && setSettings(f),
        (error: unknown) => {
          if (cancelled) return;
          const fail = () => setPageError(getErrorMessage(error));
          handleFlowError<SettingsFlow>(error, {
            redirect: redirectTo,
            rerender: fail,
            restart: fail,
            home: fail,
            unauthorized: fail,
            error: fail,
          });
        },
      );
    if (search.profileFlow) {
      getSettingsFlow(config.identityUrl, search.profileFlow).then(
        (f) => !cancelled && setSettings(f),
        () => !cancelled && void create(),
      );
    } else void create();
    return () => {
      cancelled = true;
    };
  }, [view, hasSettings, search.profileFlow, config.identityUrl]);

  async function submitPassword(password: string): Promise<void> {
    if (!settings) return;
    setBusy(true);
    setErrors([]);
    setFieldErrors([]);
    const show = (flow: SettingsFlow) => {
      setSettings(flow);
      setErrors(errorMessages({ ui: { ...flow.ui, nodes: [] } }).map((m) => m.text));
      setFieldErrors(nodeMessages(flow, 'password').map((m) => m.text));
    };
    try {
      const next = await submitSettings(config.identityUrl, settings.id, {
        method: 'password',
        password,
        csrf_token: csrfToken(settings),
      });
      if (next.state === 'success')
        saveState({ ...(state ?? fresh), codeSubmitted: true, passwordSet: true });
      else show(next);
    } catch (error) {
      const onForm = () => setErrors([getErrorMessage(error)]);
      handleFlowError<SettingsFlow>(error, {
        rerender: show,
        redirect: redirectTo,
        restart: () => {
          setSettings(null);
          onForm();
        },
        home: onForm,
        unauthorized: onForm,
        error: (message) => setErrors([message]),
      });
    } finally {
      setBusy(false);
    }
  }

  // 2FA: the shared TOTP setup (a settings flow of its own, so a fresh QR code).
  const totp = useTotpSetup({ enabled: view === 'mfa' });
  // Once completed, the 2FA step stays done (the setup hook is disabled when the view moves on).
  if (totp.status === 'completed' && !mfaCompleted) setMfaCompleted(true);
  useEffect(() => {
    if (totp.status === 'completed') void reloadSession();
  }, [totp.status, reloadSession]);

  const skipMfa = canSkipMfa(session.facts, session.checkedAt)
    ? () => {
        remove(registry.mfaSetupState);
        setMfaSkipped(true);
      }
    : undefined;

  // Terms: record the acceptance, then a session refresh is required.
  async function accept(documents: TermsDocuments): Promise<void> {
    setBusy(true);
    setErrors([]);
    try {
      const result = await acceptTerms(config.usersUrl, documents);
      if (result.tosAccepted) saveState({ ...(state ?? fresh), isSessionRefreshRequired: true });
      else setErrors([copy.errors.unknown]);
    } catch (error) {
      setErrors([getErrorMessage(error)]);
    } finally {
      setBusy(false);
    }
  }

  // Done: refresh the session (the identity now says tosAccepted), clear the state, go to login.
  useEffect(() => {
    if (view !== 'done') return;
    let cancelled = false;
    whoami(config.identityUrl)
      .catch(() => null)
      .then(() => {
        if (cancelled) return;
        saveState(null);
        navigate(paths.login, { replace: true });
      });
    return () => {
      cancelled = true;
    };
  }, [view, config.identityUrl, saveState]);

  return {
    view,
    config,
    email: session.facts?.email ?? '',
    busy,
    errors,
    fieldErrors,
    pageError:
      pageError ??
      (session.state === 'error' ? copy.errors.loadingSession(session.error ?? copy.errors.unknown) : null) ??
      (totp.status === 'error' ? totp.pageError : null),
    settingsReady: settings !== null,
    totp,
    skipMfa,
    submitPassword,
    accept,
  };
}
