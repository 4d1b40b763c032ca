import { useEffect, useEffectEvent, useRef } from 'react';
import { copy } from '../../../copy.ts';
import { Card } from '../../../shared/ui/card.tsx';
import type { SsoStepView } from '../sso-redirect.ts';

/**
 * Login step 3 (single sign-on): "Redirecting you to your organisation's SSO provider...". Redirects at once
 * unless a redirect lock is present (then a Proceed button) or more than 5 redirects happened.
 */
export function SsoStep({
  view,
  busy,
  onRedirect,
}: {
  view: SsoStepView;
  busy: boolean;
  onRedirect: () => void;
}) {
  const started = useRef(false);
  const redirectOnce = useEffectEvent(() => {
    if (view !== 'redirect' || started.current) return;
    started.current = true;
    onRedirect();
  });
  useEffect(() => redirectOnce(), [view]);

  if (view === 'loop') {
    return (
      <Card>
        <p role="alert">{copy.login.sso.redirectLoop}</p>
      </Card>
    );
  }
  return (
    <Card>
      <p role="status">{copy.login.sso.redirecting}</p>
      {view === 'proceed' && (
        <button type="button" className="button" disabled={busy} onClick={onRedirect}>
          {copy.login.sso.proceed}
        </button>
      )}
    </Card>
  );
}
