import { app, authentication } from '@microsoft/teams-js';
import { TEAMS_SDK } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { isValidTeamsAppId, teamsUrlProblem } from './teams-rules.ts';

// The team-collaboration client's SDK (teams-js 2.30.0) for the m365 login: the user's context and
// getAuthToken (initialising is shared/teams). Only the m365 login route with isTeams=1 loads this module.

export interface TeamsUser {
  username: string | null;
  displayName: string | null;
}

export async function teamsUser(): Promise<TeamsUser> {
  const context = await app.getContext();
  return {
    username: context.user?.userPrincipalName ?? context.user?.loginHint ?? null,
    displayName: context.user?.displayName ?? null,
  };
}

/** The host's token for our app (its client id is the Teams app's web-app id). */
export async function teamsAuthToken(appId: string): Promise<string> {
  if (!isValidTeamsAppId(appId)) {
    throw new Error(copy.teams.invalidAppId(TEAMS_SDK.appIdLength.min, TEAMS_SDK.appIdLength.max));
  }
  return authentication.getAuthToken();
}

/** Opens an external page from inside Teams (a plain link would open inside the frame). */
export async function openTeamsLink(url: string): Promise<void> {
  const problem = teamsUrlProblem(url);
  if (problem) throw new Error(problem);
  await app.openLink(url);
}
