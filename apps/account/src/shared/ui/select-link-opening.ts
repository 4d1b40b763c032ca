// Where a Terms of Service or Privacy Notice link opens, so that the form it sits on keeps its state.

export type LinkOpening = 'tab' | 'window';

/**
 * Inside the Teams frame (the page is framed, or the isTeams flag is set) a new window: a plain link
 * would open inside the frame or not at all. Everywhere else a new tab.
 */
export function selectLinkOpening(input: { framed: boolean; teamsFlag: boolean }): LinkOpening {
  return input.framed || input.teamsFlag ? 'window' : 'tab';
}
