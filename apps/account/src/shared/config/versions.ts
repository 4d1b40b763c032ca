import { FORM_CARD_WIDTH_PX, SIGN_IN_WRAPPER_VERSION, TEAMS_SDK } from '../../constants.ts';

// The business constants the page itself uses (`constants.ts`): the form card's width (the CSS reads it as
// `--form-card-width`), and the versions the app reports.

/** The versions of the sign-in parts, as the app reports them (the landing pages' footer). */
export function appVersions(): Record<string, string> {
  return { signInWrapper: SIGN_IN_WRAPPER_VERSION, teamsSdk: TEAMS_SDK.version };
}

/** One line, e.g. "sign-in wrapper 2.2.0 · Teams SDK 2.30.0". */
export function versionsLine(): string {
  const v = appVersions();
  return `sign-in wrapper ${v.signInWrapper} · Teams SDK ${v.teamsSdk}`;
}

export function applyLayoutConstants(root: HTMLElement): void {
  root.style.setProperty('--form-card-width', `${FORM_CARD_WIDTH_PX}px`);
}
