import { M365_ACTIVATION_FLAG_ON } from '../../constants.ts';
import type { InteractionStatusValue, M365Outcome } from './select-m365-view.ts';

// The m365 login screen's effects as a pure function returning one command; m365-commands.ts runs it.

export type Phase = 'idle' | 'running' | 'done' | 'failed';

export interface M365EffectInput {
  isTeams: boolean;
  interaction: InteractionStatusValue;
  /** Teams: the SDK's token fetch (idle until asked) and its token. */
  teamsPhase: Phase;
  teamsToken: string | null;
  /** Browser: a Microsoft account is signed in (MSAL's active account). */
  hasAccount: boolean;
  identityToken: string | null;
  directoryToken: string | null;
  tokensPhase: Phase;
  marketplaceToken: string | null;
  /** The stored activation flag; activation starts by itself only when it is the string 'true'. */
  activationFlag: string | null;
  activationPhase: Phase;
  backendLoginPhase: Phase;
  outcome: M365Outcome | null;
  autoContinue: boolean;
  /** The final step already sent the browser to a redirect sign-in once. */
  redirectAttempted: boolean;
}

export type M365Command =
  | { type: 'none' }
  | { type: 'teams-token' }
  | { type: 'redirect-login'; reason: 'auto-continue' | 'final-step' }
  | { type: 'acquire-tokens' }
  | { type: 'activate'; marketplaceToken: string; identityToken: string; directoryToken: string }
  | { type: 'backend-login'; bearer: string; graphAccessToken: string | null };

const NONE: M365Command = { type: 'none' };

export function decideM365Effect(input: M365EffectInput): M365Command {
  // Something has been decided already, or a call is running: wait for it.
  if (input.outcome) return NONE;
  if (input.backendLoginPhase === 'running' || input.activationPhase === 'running') return NONE;

  // Inside Teams: no MSAL. The SDK's token is fetched on entry; with it, the backend login runs
  // (the user service gets the Graph token on-behalf-of).
  if (input.isTeams) {
    if (input.teamsPhase === 'idle') return { type: 'teams-token' };
    if (input.teamsToken && input.backendLoginPhase === 'idle') {
      return { type: 'backend-login', bearer: input.teamsToken, graphAccessToken: null };
    }
    return NONE;
  }

  // MSAL is busy (start-up, redirect handling, a popup): its result decides what follows.
  if (input.interaction !== 'none') return NONE;

  if (!input.hasAccount) {
    if (input.autoContinue) return { type: 'redirect-login', reason: 'auto-continue' };
    // Without an identity token, the final step forces a redirect sign-in (once).
    if (input.marketplaceToken && !input.redirectAttempted) {
      return { type: 'redirect-login', reason: 'final-step' };
    }
    return NONE;
  }

  if (!input.identityToken || !input.directoryToken) {
    return input.tokensPhase === 'idle' ? { type: 'acquire-tokens' } : NONE;
  }

  if (input.marketplaceToken) {
    if (input.activationPhase === 'idle' && input.activationFlag === M365_ACTIVATION_FLAG_ON) {
      return {
        type: 'activate',
        marketplaceToken: input.marketplaceToken,
        identityToken: input.identityToken,
        directoryToken: input.directoryToken,
      };
    }
    // Activation success marks the organisation subscribed, then the backend login runs.
    if (input.activationPhase === 'done' && input.backendLoginPhase === 'idle') {
      return { type: 'backend-login', bearer: input.identityToken, graphAccessToken: input.directoryToken };
    }
    return NONE;
  }

  // Both tokens exist after the cloud sign-in: the backend login is triggered.
  if (input.backendLoginPhase === 'idle') {
    return { type: 'backend-login', bearer: input.identityToken, graphAccessToken: input.directoryToken };
  }
  return NONE;
}
