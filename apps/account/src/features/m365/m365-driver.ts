import type { InteractionStatusValue } from './select-m365-view.ts';

/**
 * What the m365 login needs from Microsoft, in the browser (MSAL) or inside Teams (teams-js). The two
 * implementations live in their own modules so that each library loads only where it is used.
 */
export interface M365Driver {
  isTeams: boolean;
  /** MSAL's interaction status; always 'none' inside Teams. */
  interaction: InteractionStatusValue;
  /** The signed-in Microsoft account (browser) or the Teams user, for "Signing up as". */
  username: string | null;
  hasAccount: boolean;
  /** Browser: sign in by popup, redirect or silently (MSAL's ssoSilent). */
  signIn(
    kind: 'popup' | 'redirect' | 'silent',
    options?: { redirectStartPage?: string; loginHint?: string },
  ): Promise<void>;
  /** Browser: the identity token and the directory (Graph) token of the signed-in account. */
  acquireTokens(): Promise<{ identityToken: string; directoryToken: string }>;
  /** Teams: initialise the SDK and get its token for our app. */
  teamsToken(): Promise<string>;
  /** Opens an external page (inside Teams through the SDK). */
  openExternal(url: string): Promise<void>;
}
