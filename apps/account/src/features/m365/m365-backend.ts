import { M365_ERROR_CODES, TOKEN_EXPIRY_FACTOR_MS } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { messageFromBody } from '../../shared/errors/get-error-message.ts';
import type { OAuth2Token } from '../../shared/storage/registry.ts';
import { assertParam, postJson } from './http-client.ts';
import type { M365Outcome } from './select-m365-view.ts';

// The user service's m365 calls: backend login `POST /m365/login` (Authorization: Bearer <Microsoft
// identity token or Teams token>, body {graphAccessToken}) answering {accessToken, expiresIn}.

export interface BackendLoginAnswer {
  accessToken: string;
  expiresIn: number;
}

export async function backendLogin(
  usersUrl: string,
  bearer: string | null,
  graphAccessToken: string | null,
): Promise<BackendLoginAnswer> {
  const token = assertParam(bearer, 'bearer', 'backendLogin');
  const body = await postJson<Partial<BackendLoginAnswer>>(new URL('/m365/login', usersUrl).toString(), {
    bearer: token,
    body: graphAccessToken ? { graphAccessToken } : {},
  });
  if (typeof body?.accessToken !== 'string' || typeof body.expiresIn !== 'number') {
    throw new Error(copy.errors.invalidTokenResponse);
  }
  return { accessToken: body.accessToken, expiresIn: body.expiresIn };
}

/** The stored token: no refresh token (a new one comes from Microsoft), expiry = now + expiresIn × 1000. */
export function tokenFromBackendLogin(answer: BackendLoginAnswer, now: number): OAuth2Token {
  return {
    accessToken: answer.accessToken,
    refreshToken: null,
    expiresAt: now + answer.expiresIn * TOKEN_EXPIRY_FACTOR_MS,
  };
}

export type BackendLoginFailure =
  | { type: 'outcome'; outcome: M365Outcome; subscriptionUrl: string | null }
  | { type: 'message'; message: string };

/**
 * UserNotSubscribedException → subscription-required, UserNotGrantedAccessException → consent-required,
 * UnauthorisedUserException → unauthorised-user; anything else shows its message (or "Unknown error").
 */
export function classifyBackendLoginError(error: unknown): BackendLoginFailure {
  const body =
    error && typeof error === 'object' && 'body' in error ? (error as { body: unknown }).body : null;
  const errorCode =
    body && typeof body === 'object' ? (body as { errorCode?: unknown }).errorCode : undefined;
  const link =
    body && typeof body === 'object'
      ? (body as { subscriptionSetupUrl?: unknown }).subscriptionSetupUrl
      : undefined;
  const subscriptionUrl = typeof link === 'string' && /^https?:\/\//.test(link) ? link : null;
  switch (errorCode) {
    case M365_ERROR_CODES.notSubscribed:
      return { type: 'outcome', outcome: 'not-subscribed', subscriptionUrl };
    case M365_ERROR_CODES.notGranted:
      return { type: 'outcome', outcome: 'not-granted', subscriptionUrl: null };
    case M365_ERROR_CODES.unauthorised:
      return { type: 'outcome', outcome: 'unauthorised', subscriptionUrl: null };
    case M365_ERROR_CODES.accountInactive:
      return { type: 'message', message: copy.m365.accountInactive };
    case M365_ERROR_CODES.networkNotTrusted:
      return { type: 'message', message: copy.errors.networkNotTrusted };
  }
  const fromBody = messageFromBody(body);
  if (fromBody) return { type: 'message', message: fromBody };
  if (error instanceof Error && error.message) return { type: 'message', message: error.message };
  return { type: 'message', message: copy.errors.unknown };
}
