import { useMemo, useState } from 'react';
import { copy } from '../../copy.ts';
import type { M365Config } from '../../shared/config/env.ts';
import { M365LoginScreen } from './m365-login-screen.tsx';
import type { M365Driver } from './m365-driver.ts';
import { initializeTeams } from '../../shared/teams/teams-sdk.ts';
import { openTeamsLink, teamsAuthToken, teamsUser } from './teams-client.ts';
import { teamsErrorMessage } from './teams-rules.ts';
import type { M365LoginSearch } from './use-m365-login.ts';
import { useM365Login } from './use-m365-login.ts';

// The m365 login inside Teams (isTeams=1): no MSAL; the host's token from getAuthToken.

export default function TeamsM365Login({ search, m365 }: { search: M365LoginSearch; m365: M365Config }) {
  const [username, setUsername] = useState<string | null>(null);
  const driver = useMemo<M365Driver>(
    () => ({
      isTeams: true,
      interaction: 'none',
      username,
      hasAccount: false,
      signIn: () => Promise.reject(new Error(copy.m365.invalidInteractionType)),
      acquireTokens: () => Promise.reject(new Error(copy.m365.invalidInteractionType)),
      async teamsToken() {
        try {
          await initializeTeams(m365.extraFrameAncestors);
          teamsUser().then(
            (user) => setUsername(user.username),
            () => undefined,
          );
          return await teamsAuthToken(m365.clientId);
        } catch (error) {
          throw new Error(teamsErrorMessage(error), { cause: error });
        }
      },
      openExternal: openTeamsLink,
    }),
    [username, m365],
  );
  const state = useM365Login(search, driver);
  return <M365LoginScreen {...state} />;
}
