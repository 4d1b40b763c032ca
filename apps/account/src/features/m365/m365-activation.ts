import { M365_ERROR_CODES } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { assertParam, postJson } from './http-client.ts';

// Marketplace activation from the Final Step: the purchase token with the caller's Microsoft identity
// token as the bearer and the Graph token, `{token, graphAccessToken}`.

const ACTIVATION_PATH = '/m365/marketplace/activate';

export async function activateSubscription(
  usersUrl: string,
  input: { marketplaceToken: string | null; identityToken: string | null; graphAccessToken: string | null },
): Promise<void> {
  const token = assertParam(input.marketplaceToken, 'token', 'activateSubscription');
  const bearer = assertParam(input.identityToken, 'bearer', 'activateSubscription');
  await postJson(new URL(ACTIVATION_PATH, usersUrl).toString(), {
    bearer,
    body: { token, graphAccessToken: input.graphAccessToken },
  });
}

function errorCodeOf(error: unknown): unknown {
  const body =
    error && typeof error === 'object' && 'body' in error ? (error as { body: unknown }).body : null;
  return body && typeof body === 'object' ? (body as { errorCode?: unknown }).errorCode : undefined;
}

/** The purchase belongs to a tenant whose organisation already has a subscription. */
export function isAlreadySubscribed(error: unknown): boolean {
  return errorCodeOf(error) === M365_ERROR_CODES.alreadySubscribed;
}

/**
 * What a failed activation shows: our own words for the refusals the person can act on (not the
 * purchaser, subscription suspended or cancelled at the marketplace), else the server's message.
 */
export function activationErrorMessage(error: unknown): string {
  switch (errorCodeOf(error)) {
    case M365_ERROR_CODES.notPurchaser:
      return copy.m365.notPurchaser;
    case M365_ERROR_CODES.subscriptionInactive:
      return copy.m365.subscriptionInactive;
  }
  return getErrorMessage(error);
}
