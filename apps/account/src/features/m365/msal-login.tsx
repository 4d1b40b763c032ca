import type { IPublicClientApplication, PublicClientApplication } from '@azure/msal-browser';
import { stubbedPublicClientApplication } from '@azure/msal-browser';
import { MsalProvider, useMsal } from '@azure/msal-react';
import { useEffect, useMemo, useState } from 'react';
import { copy } from '../../copy.ts';
import type { M365Config } from '../../shared/config/env.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { M365LoginScreen } from './m365-login-screen.tsx';
import type { M365Driver } from './m365-driver.ts';
import { acquireToken, getMsalInstance, signIn } from './msal-client.ts';
import type { InteractionStatusValue } from './select-m365-view.ts';
import type { M365LoginSearch } from './use-m365-login.ts';
import { useM365Login } from './use-m365-login.ts';

// The m365 login in a browser: MSAL (popup, redirect, silent) under MSAL React's provider, which also
// handles a redirect response on start-up (interaction status startup → handleRedirect → none).

/** The MSAL driver; outside MsalProvider MSAL React hands out a stub, and every call rejects. */
function useMsalDriver(): M365Driver {
  const { instance, inProgress, accounts } = useMsal();
  const account = instance.getActiveAccount() ?? accounts[0] ?? null;
  return useMemo(() => {
    const pca: IPublicClientApplication = instance;
    const withoutProvider = pca === stubbedPublicClientApplication;
    const guard = () => {
      if (withoutProvider) throw new Error(copy.m365.noProvider);
    };
    return {
      isTeams: false,
      interaction: inProgress as InteractionStatusValue,
      username: account?.username ?? null,
      hasAccount: account !== null,
      async signIn(kind, options) {
        guard();
        await signIn(pca, kind, options);
      },
      async acquireTokens() {
        guard();
        const active = pca.getActiveAccount() ?? pca.getAllAccounts()[0];
        if (!active) throw new Error(copy.m365.noIdentityToken);
        pca.setActiveAccount(active);
        // Another popup or redirect already running: the interaction_required fallback must not start one.
        const busy = () => inProgress !== 'none';
        const directoryToken = await acquireToken(pca, active, 'directory', 'popup', busy);
        const identityToken = await acquireToken(pca, active, 'identity', 'popup', busy);
        return { identityToken, directoryToken };
      },
      teamsToken: () => Promise.reject(new Error(copy.m365.invalidInteractionType)),
      openExternal: async (url: string) => {
        window.open(url, '_blank', 'noopener,noreferrer');
      },
    } satisfies M365Driver;
  }, [instance, inProgress, account]);
}

function MsalM365Screen({ search }: { search: M365LoginSearch }) {
  const state = useM365Login(search, useMsalDriver());
  return <M365LoginScreen {...state} />;
}

export default function MsalM365Login({ search, m365 }: { search: M365LoginSearch; m365: M365Config }) {
  const [pca, setPca] = useState<PublicClientApplication | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getMsalInstance(m365).then(setPca, (e: unknown) => setError(getErrorMessage(e)));
  }, [m365]);
  if (error) return <ErrorView message={error} mode="retry" />;
  if (!pca) return <Progress label={copy.m365.signingIn} />;
  return (
    <MsalProvider instance={pca}>
      <MsalM365Screen search={search} />
    </MsalProvider>
  );
}
