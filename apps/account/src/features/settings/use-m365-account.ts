import { useCallback, useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { readToken } from '../../shared/oauth2/token-lifecycle.ts';
import {
  getMyAccount,
  listConnectedApps,
  revokeConnectedApp,
  type ConnectedApp,
  type MyAccount,
} from '../../shared/users-client/users-client.ts';
import type { SettingsNotice } from './settings-notice.ts';

/**
 * The account page of a Microsoft 365 person, who has no identity session and so no settings flows:
 * who they are and their connected apps, asked of the user service with their access token.
 */
export function useM365Account(config: AccountConfig, enabled: boolean) {
  const [account, setAccount] = useState<MyAccount | null>(null);
  const [apps, setApps] = useState<ConnectedApp[] | null>(null);
  const [notice, setNotice] = useState<SettingsNotice | null>(null);
  const [busy, setBusy] = useState(false);
  const { usersUrl } = config;

  // Without the list the rest of the page still works: the section is left out.
  const loadApps = useCallback(
    () => listConnectedApps(usersUrl, readToken()?.accessToken).then(setApps, () => setApps(null)),
    [usersUrl],
  );
  useEffect(() => {
    if (!enabled) return;
    getMyAccount(usersUrl, readToken()?.accessToken).then(setAccount, () => setAccount(null));
    void loadApps();
  }, [enabled, usersUrl, loadApps]);

  async function revokeApp(clientId: string, name: string): Promise<void> {
    setBusy(true);
    setNotice(null);
    try {
      await revokeConnectedApp(usersUrl, clientId, readToken()?.accessToken);
      await loadApps();
      setNotice({ section: 'apps', text: copy.settings.appRevoked(name) });
    } catch (error) {
      showToast(copy.settings.settingsFlow(getErrorMessage(error)));
    } finally {
      setBusy(false);
    }
  }

  return { account, apps, notice, busy, revokeApp };
}

export type M365AccountModel = ReturnType<typeof useM365Account>;
