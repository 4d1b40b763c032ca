import { SsoPopupScreen } from '../features/login/sso-popup-screen.tsx';
import { selectSsoPopupStep } from '../features/login/select-sso-popup-step.ts';
import { useSsoPopup } from '../features/login/use-sso-popup.ts';

/** The SSO pop-up window opened from the Teams frame (guest-allowed: nobody is signed in yet). */
export default function SsoPopupRoute({
  search,
}: {
  search: { provider?: string; done?: string; via?: string };
}) {
  const step = selectSsoPopupStep({ ...search, hasOpener: window.opener !== null });
  return <SsoPopupScreen view={useSsoPopup(step)} />;
}
