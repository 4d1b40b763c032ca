import { copy } from '../../copy.ts';
import { Card } from '../../shared/ui/card.tsx';
import type { SsoPopupView } from './use-sso-popup.ts';

const t = copy.ssoPopup;

const TEXT: Record<SsoPopupView, string> = {
  starting: t.starting,
  finishing: t.finishing,
  done: t.done,
  failed: t.failed,
  invalid: t.noProvider,
};

/** The SSO pop-up window's page: one line saying where the sign-in is. */
export function SsoPopupScreen({ view }: { view: SsoPopupView }) {
  const problem = view === 'failed' || view === 'invalid';
  return (
    <Card title={t.title}>
      {problem ? (
        <div className="error-box" role="alert">
          <p>{TEXT[view]}</p>
        </div>
      ) : (
        <p role="status">{TEXT[view]}</p>
      )}
    </Card>
  );
}
