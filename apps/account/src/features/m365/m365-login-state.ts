import type { Phase } from './decide-m365-effect.ts';
import type { M365Outcome } from './select-m365-view.ts';

// The m365 login screen's state and its small helpers, outside React.

export interface M365State {
  teamsPhase: Phase;
  teamsToken: string | null;
  tokensPhase: Phase;
  identityToken: string | null;
  directoryToken: string | null;
  activationPhase: Phase;
  backendLoginPhase: Phase;
  outcome: M365Outcome | null;
  fatalError: string | null;
  subscriptionUrl: string | null;
}

export type PatchM365 = (p: Partial<M365State>) => void;

export const initialM365State: M365State = {
  teamsPhase: 'idle',
  teamsToken: null,
  tokensPhase: 'idle',
  identityToken: null,
  directoryToken: null,
  activationPhase: 'idle',
  backendLoginPhase: 'idle',
  outcome: null,
  fatalError: null,
  subscriptionUrl: null,
};

/** The current URL without autoContinue (a redirect sign-in must not come back to another one). */
export function withoutAutoContinue(): string {
  const params = new URLSearchParams(window.location.search);
  params.delete('autoContinue');
  const qs = params.toString();
  return `${window.location.origin}${window.location.pathname}${qs ? `?${qs}` : ''}`;
}

export function isCancellation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { errorCode?: unknown }).errorCode;
  return code === 'user_cancelled' || code === 'access_denied';
}
