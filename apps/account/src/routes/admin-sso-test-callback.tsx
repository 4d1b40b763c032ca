import { useEffect, useRef } from 'react';
import { consoleCopy } from '../features/admin-console/copy.ts';
import { selectSsoTestMessage, SSO_TEST_CHANNEL } from '../features/admin-console/decide-sso-test-message.ts';
import { getConfig } from '../shared/config/env.ts';

const t = consoleCopy.sso;

/**
 * The console's Test sign-in callback (a popup, admin application only): posts the provider's
 * answer to the console page that opened it, to our own origin only, and closes. When the
 * provider's pages cut the popup from its opener (Cross-Origin-Opener-Policy), the answer goes by a
 * same-origin BroadcastChannel instead. Either way the console page completes the test with its own
 * access token, which binds the result to that admin, and only for the state it started.
 */
export default function AdminSsoTestCallback({
  search,
}: {
  search: { code?: string; state?: string; error?: string };
}) {
  const admin = getConfig().application === 'admin';
  const message = admin ? selectSsoTestMessage(search) : null;
  const sent = useRef(false);
  useEffect(() => {
    if (!message || sent.current) return;
    sent.current = true;
    const opener = window.opener as Window | null;
    if (opener) opener.postMessage(message, window.location.origin);
    else {
      const channel = new BroadcastChannel(SSO_TEST_CHANNEL);
      channel.postMessage(message);
      channel.close();
    }
    window.close();
  }, [message]);
  return (
    <main className="page">
      <h1>{t.callbackTitle}</h1>
      <p role="status">{message ? t.callbackDone : t.callbackNoOpener}</p>
    </main>
  );
}
