// Whether the Email step offers "Sign in with a passkey", and browser autofill (conditional
// mediation). Not inside the Teams frame (its embedded browser can not show the passkey prompt), not
// without WebAuthn in the browser, and not before the login flow carries a challenge. The offer is the
// same for every address: it never depends on what was typed.

export interface PasskeyOfferInput {
  /** The page is framed, or the Teams flag is set (`selectLinkOpening`'s test). */
  inTeams: boolean;
  /** `window.PublicKeyCredential` exists. */
  webauthn: boolean;
  /** The browser can offer passkeys in the address field's autofill. */
  conditionalMediation: boolean;
  /** The login flow's passkey challenge is at hand. */
  hasChallenge: boolean;
}

export interface PasskeyOffer {
  button: boolean;
  autofill: boolean;
}

export function decidePasskeyOffer(input: PasskeyOfferInput): PasskeyOffer {
  const button = !input.inTeams && input.webauthn && input.hasChallenge;
  return { button, autofill: button && input.conditionalMediation };
}
