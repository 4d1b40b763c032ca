// The m365 login screen's mode, a pure function of what the hook knows (like every flow's step, it is
// derived, never stored). Modes: loading, login, consent-required, subscription-required,
// activate-subscription, unauthorised-user, authenticated, error; plus the "organisation already
// subscribed" view that the activation can end in.

type M365Mode =
  | 'loading'
  | 'login'
  | 'consent-required'
  | 'subscription-required'
  | 'activate-subscription'
  | 'unauthorised-user'
  | 'authenticated'
  | 'error';

export type M365View = M365Mode | 'already-subscribed';

/** MSAL's interaction statuses (InteractionStatus), by their wire values. */
export type InteractionStatusValue =
  'startup' | 'none' | 'login' | 'acquireToken' | 'ssoSilent' | 'handleRedirect' | 'logout';

/** What the backend login (or the activation) answered. */
export type M365Outcome =
  'not-subscribed' | 'not-granted' | 'unauthorised' | 'authenticated' | 'already-subscribed';

export interface M365ViewInput {
  isTeams: boolean;
  /** MSAL's interaction status; inside Teams MSAL is not used and this is 'none'. */
  interaction: InteractionStatusValue;
  /** The backend login runs, or the Teams SDK is fetching its token. */
  busy: boolean;
  outcome: M365Outcome | null;
  /** A failure the user can only retry (Teams SDK, MSAL start-up). */
  fatalError: string | null;
  /** The marketplace purchase token of the landing page (?token=). */
  marketplaceToken: string | null;
  /** A valid m365 access token of ours is already stored. */
  hasM365Token: boolean;
}

export function selectM365View(input: M365ViewInput): M365View {
  if (input.fatalError) return 'error';
  switch (input.outcome) {
    case 'not-granted':
      return 'consent-required';
    case 'not-subscribed':
      return 'subscription-required';
    case 'unauthorised':
      return 'unauthorised-user';
    case 'already-subscribed':
      return 'already-subscribed';
    case 'authenticated':
      return 'authenticated';
    case null:
      break;
  }
  if (input.busy) return 'loading';
  // MSAL is still starting or handling a redirect response: nothing to choose yet.
  if (!input.isTeams && (input.interaction === 'startup' || input.interaction === 'handleRedirect')) {
    return 'loading';
  }
  // A marketplace token leads to activate-subscription, an existing authenticated state to
  // authenticated, everything else to login.
  if (input.marketplaceToken) return 'activate-subscription';
  if (input.hasM365Token) return 'authenticated';
  return 'login';
}
