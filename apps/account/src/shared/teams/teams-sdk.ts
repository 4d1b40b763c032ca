import { app, authentication } from '@microsoft/teams-js';
import { TEAMS_SDK } from '../../constants.ts';
import { copy } from '../../copy.ts';

// The team-collaboration client's SDK (teams-js 2.30.0) where more than one feature needs it: initialising
// (5 s time-out, once) and the authentication window. Loaded only inside the Teams frame (dynamic imports).

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

/**
 * The Teams authentication window (600×400 in the web client, which teams-js polls every 100 ms; the
 * desktop and mobile hosts open their own): resolves with what the window passed to `notifySuccess`,
 * rejects with its `notifyFailure` reason, or "CancelledByUser" when it was closed.
 */
export async function authenticateInTeams(
  url: string,
  size: { width: number; height: number },
  validMessageOrigins: string[],
): Promise<string> {
  await initializeTeams(validMessageOrigins);
  return authentication.authenticate({ url, width: size.width, height: size.height });
}

/**
 * In the authentication window: tells the frame that opened it how the sign-in ended (teams-js then
 * closes this window). `result` reaches the frame as `authenticate`'s value or its failure reason.
 */
export async function notifyTeamsAuthentication(succeeded: boolean, result: string): Promise<void> {
  await initializeTeams([]);
  if (succeeded) authentication.notifySuccess(result);
  else authentication.notifyFailure(result);
}
