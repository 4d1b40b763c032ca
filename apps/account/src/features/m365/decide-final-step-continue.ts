// The m365 Final Step's Continue: what one press does, as a pure function.
//
// - Inside Teams there is no MSAL interaction at all (the Teams host owns the sign-in): Continue asks
//   the host for its token again. It can never end in "The provided interaction type is invalid.".
// - In the browser without an identity token (no signed-in account): sign in silently with the
//   existing silent sign-in (MSAL's ssoSilent); once a silent attempt has failed, its error is muted
//   and the sign-in uses a popup instead ("popup if errors are muted, else silent").
// - Signed in: the tokens, then the activation. A failed token fetch is fetched again, so Continue
//   works again without a reload.

export interface FinalStepInput {
  isTeams: boolean;
  hasAccount: boolean;
  /** A silent sign-in failed before: its error was muted, the next sign-in is a popup. */
  errorsMuted: boolean;
}

export type FinalStepContinue =
  { type: 'teams-token' } | { type: 'sign-in'; kind: 'silent' | 'popup' } | { type: 'activate' };

export function decideFinalStepContinue(input: FinalStepInput): FinalStepContinue {
  if (input.isTeams) return { type: 'teams-token' };
  if (!input.hasAccount) return { type: 'sign-in', kind: input.errorsMuted ? 'popup' : 'silent' };
  return { type: 'activate' };
}
