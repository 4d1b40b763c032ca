import { TEAMS_SDK } from '../../constants.ts';

// Where single sign-on runs: in this page (a top-level navigation), or, inside the Teams frame, in the
// Teams authentication pop-up (`TEAMS_SDK`: 600×400, the window polled every 100 ms). An organisation's
// identity provider may refuse to be framed, and a framed sign-in would lose its cookies to the host's
// third-party rules, so inside the frame the provider gets a window of its own.

export type SsoOpening =
  | { kind: 'navigate' }
  /** teams-js `authentication.authenticate({url, width, height})`: the host opens and watches the window. */
  | { kind: 'teams-sdk'; width: number; height: number }
  /** The same pop-up opened by the page (teams-js refuses URLs that are not https: the development host). */
  | { kind: 'window'; width: number; height: number; pollMs: number };

export interface SsoOpeningInput {
  /** The page runs in a frame. Only the Teams and Office hosts may frame the app (frame-ancestors). */
  framed: boolean;
  /** The pop-up page's URL (our origin). */
  popupUrl: string;
}

/**
 * Inside the frame: the Teams SDK's authentication window when the URL is one it accepts (https),
 * else the same window opened and polled by the page. The isTeams flag alone is not enough: set once by
 * an m365 sign-in, it outlives the frame, and a top-level tab navigates as anywhere else.
 */
export function decideSsoOpening(input: SsoOpeningInput): SsoOpening {
  if (!input.framed) return { kind: 'navigate' };
  const { width, height } = TEAMS_SDK.authPopup;
  if (URL.canParse(input.popupUrl) && new URL(input.popupUrl).protocol === 'https:') {
    return { kind: 'teams-sdk', width, height };
  }
  return { kind: 'window', width, height, pollMs: TEAMS_SDK.windowPollMs };
}
