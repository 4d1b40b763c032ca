import { IS_TEAMS_QUERY_VALUE } from '../../constants.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';

// The m365 logout subpage: sign out of the Microsoft account, then the m365 login, with isTeams=1 when
// the user came from the team client (inside Teams there is no Microsoft sign-out to do: Teams owns it).

export type M365LogoutCommand = { type: 'microsoft-sign-out'; then: string } | { type: 'go'; to: string };

export function decideM365Logout(input: {
  cameFromTeams: boolean;
  m365Configured: boolean;
}): M365LogoutCommand {
  const then = withQuery(paths.m365Login, {
    isTeams: input.cameFromTeams ? IS_TEAMS_QUERY_VALUE : undefined,
  });
  if (input.cameFromTeams || !input.m365Configured) return { type: 'go', to: then };
  return { type: 'microsoft-sign-out', then };
}
