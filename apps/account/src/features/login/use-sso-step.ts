import { useState } from 'react';
import { APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { submitForBrowserLocation } from '../../shared/identity-client/browser-location.ts';
import { whoami } from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import { decideSsoOpening, type SsoOpening } from './decide-sso-opening.ts';
import { openSsoPopup, type SsoPopupOutcome } from './sso-popup-window.ts';
import { planSsoRedirect, ssoStepView } from './sso-redirect.ts';
import type { EmailStep } from './use-email-step.ts';
import type { LoginFlowHandle } from './use-login-flow.ts';

function hasSession(identityUrl: string): Promise<boolean> {
  return whoami(identityUrl).then(
    () => true,
    () => false,
  );
}

/** The pop-up's state on the SSO step: open, or how it ended without a session. */
export type SsoPopupStatus = 'open' | Exclude<SsoPopupOutcome, 'success'> | null;

export interface SsoStepInput {
  identityUrl: string;
  /** Origins besides this one that may frame the app (Teams): the pop-up's answers may come from them. */
  frameAncestors: string[];
  now: number;
  loginFlow: Pick<LoginFlowHandle, 'flow' | 'obtainFlow'>;
  /** The email result, setting it, and `back` to the Email step (clears the email result). */
  email: Pick<EmailStep, 'emailResult' | 'setEmailResult' | 'back'>;
}

/**
 * Login step 3 (single sign-on): take the SSO redirect lock (10 min), raise the application-login
 * lock to 30 s, count the redirect, submit (method oidc, provider, csrf_token) to the flow's action
 * as JSON, and go to the provider by a top-level navigation. The view says whether to redirect at once, offer Proceed, or stop a loop.
 */
export function useSsoStep(input: SsoStepInput) {
  const [busy, setBusy] = useState(false);
  const [popupStatus, setPopupStatus] = useState<SsoPopupStatus>(null);
  const popupBase = `${window.location.origin}${paths.ssoPopup}`;
  const opening = decideSsoOpening({ framed: window.top !== window.self, popupUrl: popupBase });

  /**
   * Inside the Teams frame: the provider in a pop-up window (`/account/sso-popup`), which starts its own
   * login flow with this frame's login challenge and signs in there. It hands back the authorization
   * answer, which this frame's callback redeems. Without one (no challenge was pending) a session means
   * success and this page reloads. A window closed by hand is checked against the session too.
   */
  async function signInInPopup(provider: string, popup: Exclude<SsoOpening, { kind: 'navigate' }>) {
    const via = popup.kind === 'teams-sdk' ? 'teams' : 'window';
    setPopupStatus('open');
    const { outcome, callback } = await openSsoPopup(
      withQuery(popupBase, { provider, via }),
      popup,
      input.frameAncestors,
    );
    // The authorization answer the pop-up brought back: this frame's callback redeems it (PKCE, state).
    if (callback) {
      redirectTo(`${paths.callback}${callback}`);
      return;
    }
    if (outcome === 'success' || (outcome === 'closed' && (await hasSession(input.identityUrl)))) {
      redirectTo(window.location.href);
      return;
    }
    setPopupStatus(outcome);
  }

  async function redirectToSso(): Promise<void> {
    const provider = input.email.emailResult?.provider;
    if (!provider) {
      showToast(copy.errors.loginFlow(copy.errors.unknown));
      return;
    }
    if (opening.kind !== 'navigate') {
      await signInInPopup(provider, opening);
      return;
    }
    setBusy(true);
    const current = input.loginFlow.flow ?? (await input.loginFlow.obtainFlow({}));
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
    // A top-level navigation to the provider (no form post): CSP form-action needs no provider origin.
    try {
      redirectTo(await submitForBrowserLocation(plan.form.action, plan.form.fields));
    } catch (error) {
      setBusy(false);
      showToast(copy.errors.loginFlow(error instanceof Error ? error.message : copy.errors.unknown));
    }
  }

  const tries = read(registry.ssoTries) ?? 0;
  const ssoView = ssoStepView({
    lock: read(registry.ssoRedirectLock),
    redirects: read(registry.ssoRedirects) ?? 0,
    tries,
    now: input.now,
    popup: opening.kind !== 'navigate',
  });

  /** "Use another email": the email result and the SSO lock go; the Email step shows. */
  function anotherEmail(): void {
    remove(registry.ssoRedirectLock);
    input.email.back();
  }

  /**
   * "Try again" after a loop: the redirect count starts again (one try used) and the redirect runs.
   * The SSO lock stays (the redirect renews it), so the step does not also redirect by itself.
   */
  function tryAgain(): void {
    if (ssoView !== 'loop') return;
    write(registry.ssoTries, tries + 1);
    remove(registry.ssoRedirects);
    void redirectToSso();
  }

  /**
   * "Sign in with a password (administrators)": the same address goes to the Password step (break-glass).
   * Nothing is asked of the server here; its password check accepts or refuses (message 4010090).
   */
  function choosePassword(): void {
    const { emailResult, setEmailResult } = input.email;
    if (emailResult) setEmailResult({ ...emailResult, passwordInstead: true });
  }

  return { busy, ssoView, popupStatus, redirectToSso, anotherEmail, tryAgain, choosePassword };
}
