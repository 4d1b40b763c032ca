import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import { clearLoginState } from '../../shared/storage/clear-login-state.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { decideM365Logout } from './decide-m365-logout.ts';

/** Clears local login state (the token included), signs out of Microsoft, then goes to the m365 login. */
export function useM365Logout() {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const config = getConfig();
    const cameFromTeams = read(registry.isTeams) === true;
    const command = decideM365Logout({ cameFromTeams, m365Configured: !!config.m365 });
    clearLoginState();
    if (command.type === 'go') {
      redirectTo(command.to);
      return;
    }
    const m365 = config.m365!;
    void import('./msal-client.ts')
      .then(async ({ getMsalInstance, signOut }) => {
        const pca = await getMsalInstance(m365);
        await signOut(pca, new URL(command.then, window.location.origin).toString());
      })
      .catch((e: unknown) => {
        console.error('Microsoft sign-out failed', getErrorMessage(e));
        setError(getErrorMessage(e));
      });
  }, []);
  return { error, label: copy.progress.signingOut };
}
