import { useEffect, useEffectEvent, useRef } from 'react';
import { copy } from '../../../copy.ts';
import { Card } from '../../../shared/ui/card.tsx';
import type { SsoStepView } from '../sso-redirect.ts';
import type { SsoPopupStatus } from '../use-sso-step.ts';

const t = copy.login.sso;

const POPUP_PROBLEM = { closed: t.popupClosed, blocked: t.popupBlocked, failure: t.popupFailed } as const;

/**
 * Login step 3 (single sign-on): "Redirecting you to your organisation's SSO provider...". Redirects at once
 * unless a redirect lock is present (then a Proceed button) or more than 5 redirects happened ("Redirect
 * loop detected.", with "Try again" up to 3 times, then the support contact). "Use another email" always
 * leads back to the Email step. "Sign in with a password (administrators)" shows on every view, for every
 * address of an SSO domain (never depending on the account, so it tells nothing about who is exempted):
 * it leads to the Password step, where the identity service accepts only the operator's break-glass
 * org-admin while SSO is enforced. Inside the Teams frame (`popup`) the provider opens in a pop-up window
 * on a click, and the step says while it is open and how it ended if no session came of it.
 */
export function SsoStep({
  view,
  busy,
  popupStatus = null,
  supportEmail,
  onRedirect,
  onTryAgain,
  onUseAnotherEmail,
  onUsePassword,
}: {
  view: SsoStepView;
  busy: boolean;
  popupStatus?: SsoPopupStatus;
  supportEmail: string;
  onRedirect: () => void;
  onTryAgain: () => void;
  onUseAnotherEmail: () => void;
  onUsePassword: () => void;
}) {
  const started = useRef(false);
  const redirectOnce = useEffectEvent(() => {
    if (view !== 'redirect' || started.current) return;
    started.current = true;
    onRedirect();
  });
  useEffect(() => redirectOnce(), [view]);

  const anotherEmail = (
    <>
      <button type="button" className="button secondary" disabled={busy} onClick={onUseAnotherEmail}>
        {copy.login.useAnotherEmail}
      </button>
      <button type="button" className="button secondary" disabled={busy} onClick={onUsePassword}>
        {t.usePassword}
      </button>
    </>
  );

  if (view === 'popup') {
    const problem = popupStatus && popupStatus !== 'open' ? POPUP_PROBLEM[popupStatus] : null;
    return (
      <Card>
        <p>{t.popupText}</p>
        <p role="status">{popupStatus === 'open' ? t.popupOpen : ''}</p>
        {problem ? (
          <div className="error-box" role="alert">
            <p>{problem}</p>
          </div>
        ) : null}
        <button
          type="button"
          className="button"
          disabled={busy || popupStatus === 'open'}
          onClick={onRedirect}
        >
          {t.popupButton}
        </button>
        {anotherEmail}
      </Card>
    );
  }
  if (view === 'loop' || view === 'loop-final') {
    return (
      <Card>
        <div className="error-box" role="alert">
          <p>{t.redirectLoop}</p>
        </div>
        {view === 'loop' ? (
          <>
            <p className="muted">{t.loopHelp}</p>
            <button type="button" className="button" disabled={busy} onClick={onTryAgain}>
              {t.tryAgain}
            </button>
          </>
        ) : (
          <p className="muted">
            {t.loopFinal} {t.contactPrefix} <a href={`mailto:${supportEmail}`}>{supportEmail}</a>{' '}
            {t.contactSuffix}
          </p>
        )}
        {anotherEmail}
      </Card>
    );
  }
  return (
    <Card>
      <p role="status">{t.redirecting}</p>
      {view === 'proceed' && (
        <button type="button" className="button" disabled={busy} onClick={onRedirect}>
          {t.proceed}
        </button>
      )}
      {anotherEmail}
    </Card>
  );
}
