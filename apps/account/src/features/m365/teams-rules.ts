import { TEAMS_SDK } from '../../constants.ts';
import { copy } from '../../copy.ts';

// The team-collaboration SDK's input rules and error names, pure so that each is one table row.
// URLs must be https, at most 2048 characters and free of script tags; app ids are 5 to 255 printable
// characters with no script tags.

const SCRIPT_TAG = /<\s*\/?\s*script\b/i;

/** Null when the URL may be handed to the SDK, else the reason. */
export function teamsUrlProblem(url: string): string | null {
  if (url.length > TEAMS_SDK.urlLimit) return copy.teams.urlTooLong(TEAMS_SDK.urlLimit);
  // Script tags are looked for in the decoded form too (%3Cscript%3E).
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // a malformed escape: check the raw text only
  }
  if (SCRIPT_TAG.test(url) || SCRIPT_TAG.test(decoded)) return copy.teams.urlHasScript;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return copy.teams.urlNotHttps;
  }
  return parsed.protocol === 'https:' ? null : copy.teams.urlNotHttps;
}

/** Printable ASCII, no control characters. */
const PRINTABLE = /^[\x20-\x7e]+$/;

export function isValidTeamsAppId(appId: string): boolean {
  const { min, max } = TEAMS_SDK.appIdLength;
  return appId.length >= min && appId.length <= max && PRINTABLE.test(appId) && !SCRIPT_TAG.test(appId);
}

/** The SDK's numeric error codes by name (100, 500, 1000, 2000, 4000, 8000, 8001). */
export function teamsErrorName(code: number): string | null {
  return copy.teams.errorCodes[code] ?? null;
}

/**
 * The text for whatever the SDK rejected with: an SdkError {errorCode, message}, an Error whose message is
 * a host's failure reason (getAuthToken answers [false, reason]), or anything else.
 */
export function teamsErrorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'errorCode' in error) {
    const { errorCode, message } = error as { errorCode: unknown; message?: unknown };
    if (typeof errorCode === 'number') {
      const name = teamsErrorName(errorCode) ?? copy.errors.unknown;
      return copy.teams.sdkError(errorCode, name, typeof message === 'string' ? message : undefined);
    }
  }
  if (error instanceof Error && error.message) {
    if (error.message === copy.teams.initTimeout) return error.message;
    const code = Number(error.message);
    if (Number.isInteger(code) && teamsErrorName(code)) {
      return copy.teams.sdkError(code, teamsErrorName(code)!, undefined);
    }
    return copy.teams.authTokenFailed(error.message);
  }
  if (typeof error === 'string' && error) return copy.teams.authTokenFailed(error);
  return copy.errors.unknown;
}
