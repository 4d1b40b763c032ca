import { app, authentication } from '@microsoft/teams-js';
import { TEAMS_SDK } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { isValidTeamsAppId, teamsUrlProblem } from './teams-rules.ts';

// The team-collaboration client's SDK (teams-js 2.30.0): initialise (5 s time-out), the user's context
// and getAuthToken. Only the m365 login route with isTeams=1 loads this module.

let initialised: Promise<void> | null = null;

/** Initialises once; fails with "SDK initialization timed out." after 5 s (the SDK's own limit too). */
export function initializeTeams(validMessageOrigins: string[]): Promise<void> {
  initialised ??= new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(copy.teams.initTimeout)), TEAMS_SDK.initTimeoutMs);
    app.initialize(validMessageOrigins.length > 0 ? validMessageOrigins : undefined).then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }).catch((error: unknown) => {
    initialised = null; // a retry initialises again
    throw error;
  });
  return initialised;
}

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
